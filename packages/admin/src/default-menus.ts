// The menus fwAdmin creates at start-up (issue 20 §6, "a shell that orients"): the host's models
// at the top, each built-in model in a folder of its kind (System, AI, Logs), every menu with an
// icon name the admin UI draws (see packages/ui/app/src/shell/icons.tsx). Only missing menus are
// created: a menu someone moved, renamed or gave another icon keeps what they chose.
import { FwDefinitionError, FwError, type ModelDefinition } from '@fw/core';
import type { FwMenuRecord, FwStore } from '@fw/store';

/** A folder of built-in models: its menu code, name, icon and the models it holds. */
interface Folder {
  code: string;
  name: string;
  icon: string;
  models: readonly string[];
}

/** The folders of the built-in models, in menu order. */
export const BUILTIN_FOLDERS: readonly Folder[] = Object.freeze([
  { code: 'fw-folder:system', name: 'System', icon: 'setting', models: ['FwUser', 'FwRole', 'FwOrg', 'FwMenu', 'FwOpenApi'] },
  { code: 'fw-folder:ai', name: 'AI', icon: 'robot', models: ['FwLlm', 'FwEmbeddingModel', 'FwAgent', 'FwBiDatasource'] },
  { code: 'fw-folder:logs', name: 'Logs', icon: 'file-search', models: ['FwLoginLog', 'FwOperateLog'] },
]);

/** Icon names of the built-in models' menus. */
export const BUILTIN_ICONS: Readonly<Record<string, string>> = Object.freeze({
  FwUser: 'user',
  FwRole: 'safety',
  FwOrg: 'apartment',
  FwMenu: 'menu',
  FwOpenApi: 'api',
  FwLlm: 'message',
  FwEmbeddingModel: 'database',
  FwAgent: 'robot',
  FwBiDatasource: 'bar-chart',
  FwLoginLog: 'login',
  FwOperateLog: 'history',
});

/**
 * Checks fwAdmin's `menuIcons` option: model names to icon names of at most 64 characters.
 * @throws {FwDefinitionError} for anything else.
 */
export function checkMenuIcons(icons: unknown): Readonly<Record<string, string>> {
  if (icons === undefined) return {};
  if (typeof icons !== 'object' || icons === null || Array.isArray(icons)) throw new FwDefinitionError('fwAdmin.menuIcons', 'must be an object of model names to icon names');
  for (const [model, icon] of Object.entries(icons)) {
    if (typeof icon !== 'string' || icon.trim() === '' || icon.length > 64)
      throw new FwDefinitionError('fwAdmin.menuIcons', `the icon of ${model} must be a name of 1 to 64 characters, such as 'book' or 'BookOutlined'`);
  }
  return { ...(icons as Record<string, string>) };
}

async function ensureFolder(store: FwStore, folder: Folder, sort: number): Promise<FwMenuRecord> {
  const existing = await store.menus.findByCode(folder.code);
  if (existing) return existing;
  try {
    return await store.menus.create({ code: folder.code, name: folder.name, type: 'dir', icon: folder.icon, sort });
  } catch (error) {
    // Another instance starting at the same time created it first: take theirs.
    const winner = error instanceof FwError && error.code === 'CONFLICT' ? await store.menus.findByCode(folder.code) : undefined;
    if (winner) return winner;
    throw error;
  }
}

/**
 * Creates the missing menus of `models` (each model's menu and its function menus): host models
 * at the top in their order, then a folder per kind of built-in model holding those registered.
 * `icons` names the icon of a host model's menu (`{ Book: 'book' }`); built-ins have their own.
 */
export async function createDefaultMenus(store: FwStore, models: readonly ModelDefinition[], icons: Readonly<Record<string, string>> = {}): Promise<void> {
  const byName = new Map(models.map((m) => [m.name, m]));
  const inFolder = new Set(BUILTIN_FOLDERS.flatMap((f) => f.models));
  let sort = 0;
  for (const model of models) {
    if (inFolder.has(model.name)) continue;
    await store.menus.createModelMenu(model, { sort: sort++, icon: icons[model.name] ?? BUILTIN_ICONS[model.name] ?? null });
  }
  for (const folder of BUILTIN_FOLDERS) {
    const held = folder.models.map((name) => byName.get(name)).filter((m): m is ModelDefinition => m !== undefined);
    if (held.length === 0) continue;
    const dir = await ensureFolder(store, folder, sort++);
    for (const [i, model] of held.entries()) await store.menus.createModelMenu(model, { sort: i, parentId: dir.id, icon: icons[model.name] ?? BUILTIN_ICONS[model.name] ?? null });
  }
}
