// Everything the UI needs in this language, in one chunk loaded when the language is chosen.
import antd from 'antd/locale/ja_JP';
import 'dayjs/locale/ja';
import { ja } from '../ja';
import { modelsJa } from '../models/ja';
import type { LocalePack } from '../locale-ids';

export const pack: LocalePack = { id: 'ja', messages: ja, models: modelsJa, antd, dayjs: 'ja' };
