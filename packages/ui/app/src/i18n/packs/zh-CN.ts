// Everything the UI needs in this language, in one chunk loaded when the language is chosen.
import antd from 'antd/locale/zh_CN';
import 'dayjs/locale/zh-cn';
import { zhCN } from '../zh-CN';
import { modelsZhCN } from '../models/zh-CN';
import type { LocalePack } from '../locale-ids';

export const pack: LocalePack = { id: 'zh-CN', messages: zhCN, models: modelsZhCN, antd, dayjs: 'zh-cn' };
