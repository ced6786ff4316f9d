import type { FwMenuRecord, FwStore } from '@fw/store';

/**
 * A user's granted menus with the folders (`dir` menus) that hold them, for `GET /menu`
 * (issue 20 §6): a folder grants nothing, so a role that grants `Users` without its `System`
 * folder still shows `Users` inside it. Folders of no granted menu stay out; a disabled folder
 * (and what it holds) stays out, as the menus a person may use are the same either way. The
 * server's order (`sort`, then id) is kept.
 */
export async function withFolders(store: FwStore, granted: FwMenuRecord[]): Promise<FwMenuRecord[]> {
  // Nothing to add when every parent is already there (the usual case: no folders at all).
  const have = new Set(granted.map((m) => m.id));
  if (granted.every((m) => m.parentId === null || have.has(m.parentId))) return granted;
  const all = await store.menus.allMenus();
  const byId = new Map(all.map((m) => [m.id, m]));
  const wanted = new Set(have);
  for (const menu of granted) {
    let parentId = menu.parentId;
    // Bounded by the number of menus, so a cycle written straight into the table cannot loop.
    for (let steps = 0; parentId !== null && steps < all.length; steps += 1) {
      const parent = byId.get(parentId);
      if (!parent || parent.type !== 'dir') break;
      wanted.add(parent.id);
      parentId = parent.parentId;
    }
  }
  return all.filter((m) => wanted.has(m.id)).concat(granted.filter((m) => !byId.has(m.id)));
}
