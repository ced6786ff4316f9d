// Everything the UI needs in this language, in one chunk loaded when the language is chosen.
import antd from 'antd/locale/es_ES';
import 'dayjs/locale/es';
import { es } from '../es';
import { modelsEs } from '../models/es';
import type { LocalePack } from '../locale-ids';

export const pack: LocalePack = { id: 'es', messages: es, models: modelsEs, antd, dayjs: 'es' };
