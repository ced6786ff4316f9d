// Everything the UI needs in this language, in one chunk loaded when the language is chosen.
import antd from 'antd/locale/fr_FR';
import 'dayjs/locale/fr';
import { fr } from '../fr';
import { modelsFr } from '../models/fr';
import type { LocalePack } from '../locale-ids';

export const pack: LocalePack = { id: 'fr', messages: fr, models: modelsFr, antd, dayjs: 'fr' };
