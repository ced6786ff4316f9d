// The folders fwAdmin creates for the built-in models (packages/admin/src/default-menus.ts) are
// named in English in the database; the UI shows them in the reader's language while they keep
// that name. A folder someone renamed is shown as they named it.
import type { MessageKey } from '../i18n/en';
import type { MenuEntry } from '../types';

const BUILTIN_FOLDERS: Record<string, { name: string; key: MessageKey }> = {
  'fw-folder:system': { name: 'System', key: 'nav.folder.system' },
  'fw-folder:ai': { name: 'AI', key: 'nav.folder.ai' },
  'fw-folder:logs': { name: 'Logs', key: 'nav.folder.logs' },
};

/** The name a menu entry is shown by. */
export function menuLabel(menu: Pick<MenuEntry, 'code' | 'name'>, t: (key: MessageKey) => string): string {
  const folder = menu.code ? BUILTIN_FOLDERS[menu.code] : undefined;
  return folder && folder.name === menu.name ? t(folder.key) : menu.name;
}
