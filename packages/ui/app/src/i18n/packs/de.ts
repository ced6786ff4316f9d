// Everything the UI needs in this language, in one chunk loaded when the language is chosen.
import antd from 'antd/locale/de_DE';
import 'dayjs/locale/de';
import { de } from '../de';
import { modelsDe } from '../models/de';
import type { LocalePack } from '../locale-ids';

export const pack: LocalePack = { id: 'de', messages: de, models: modelsDe, antd, dayjs: 'de' };
