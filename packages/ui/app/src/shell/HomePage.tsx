// The home page (issue 20 §6): what the person may work on, with how many rows each holds, what
// they changed lately and where their account was signed in to (failed attempts too), each
// linking on: a count to its table, an edit to its row, a sign-in to the person's sessions.
import { useEffect, useMemo } from 'react';
import { Skeleton, Typography } from 'antd';
import { useCounts } from '../client/activity';
import { takeReturn } from '../auth';
import { useI18n } from '../i18n';
import { Link, navigate } from '../router';
import type { MenuEntry } from '../types';
import { HomeActivity } from './HomeActivity';
import { menuIcon } from './icons';
import { menuLabel } from './menuLabel';

/** A folder of the menu (or the top level) and the model menus directly or deeper inside it. */
interface Group {
  folder: MenuEntry | undefined;
  models: MenuEntry[];
}

const isModel = (m: MenuEntry) => (m.type === 'table' || m.type === 'tree') && m.status === 'open' && Boolean(m.value);

/**
 * The model menus a person navigates to, in the menu's own order (depth first), grouped by their
 * outermost folder; models at the top level come first, as the menu shows them.
 */
export function modelGroups(menus: MenuEntry[]): Group[] {
  const ids = new Set(menus.filter((m) => m.status === 'open').map((m) => m.id));
  const children = new Map<number | null, MenuEntry[]>();
  for (const m of menus) {
    if (m.status !== 'open' || m.type === 'function') continue;
    const parent = m.parentId !== null && ids.has(m.parentId) ? m.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), m]);
  }
  const below = (id: number, depth = 0): MenuEntry[] =>
    depth > 32 ? [] : (children.get(id) ?? []).flatMap((m) => (m.type === 'dir' ? below(m.id, depth + 1) : isModel(m) ? [m] : []));
  const top: Group = { folder: undefined, models: [] };
  const groups: Group[] = [top];
  for (const m of children.get(null) ?? []) {
    if (m.type === 'dir') groups.push({ folder: m, models: below(m.id) });
    else if (isModel(m)) top.models.push(m);
  }
  return groups.filter((g) => g.models.length > 0);
}

function CountTile({ menu, count }: { menu: MenuEntry; count: number | undefined }) {
  const { t } = useI18n();
  return (
    <Link to={`/model/${encodeURIComponent(menu.value!)}`} className="fw-home-count" data-model={menu.value!}>
      <span className="fw-home-count-icon" aria-hidden>
        {menuIcon(menu.icon, menu.type)}
      </span>
      <span className="fw-home-count-name">{menu.name}</span>
      {count === undefined ? (
        <Skeleton.Button active size="small" className="fw-home-count-loading" />
      ) : (
        <span className="fw-home-count-value">
          {count.toLocaleString()} <span className="fw-home-count-unit">{t('home.rowsLabel')}</span>
        </span>
      )}
    </Link>
  );
}

/** The signed-in home page. */
export function HomePage({ name, menus }: { name: string; menus: MenuEntry[] }) {
  const { t } = useI18n();
  useEffect(() => {
    // Back from a provider's sign-on (through /auth.html, which opens the root): go on where the person was.
    const back = takeReturn();
    if (back && back !== '/') navigate(back, { replace: true });
  }, []);
  const groups = useMemo(() => modelGroups(menus), [menus]);
  const models = useMemo(() => groups.flatMap((g) => g.models), [groups]);
  const counts = useCounts(models.map((m) => m.value!));
  const countOf = new Map(models.map((m, i) => [m.id, counts[i]]));
  // A model the person may open but not query (403) gets no tile: it has nothing to count.
  const shown = groups.map((g) => ({ ...g, models: g.models.filter((m) => countOf.get(m.id) !== null) })).filter((g) => g.models.length > 0);
  return (
    <div className="fw-home">
      <Typography.Title level={1} className="fw-page-title">
        {t('app.welcome', { name })}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t('app.welcomeHint')}</Typography.Paragraph>
      <section aria-labelledby="fw-home-counts-title">
        <Typography.Title level={4} id="fw-home-counts-title" className="fw-home-section">
          {t('home.counts')}
        </Typography.Title>
        {shown.length === 0 ? (
          <Typography.Paragraph type="secondary">{t('home.noModels')}</Typography.Paragraph>
        ) : (
          shown.map((g) => (
            <div key={g.folder?.id ?? 'top'} className="fw-home-group">
              {g.folder && (
                <Typography.Title level={5} className="fw-home-folder">
                  {menuIcon(g.folder.icon, g.folder.type)} {menuLabel(g.folder, t)}
                </Typography.Title>
              )}
              <div className="fw-home-counts">
                {g.models.map((menu) => (
                  <CountTile key={menu.id} menu={menu} count={countOf.get(menu.id) ?? undefined} />
                ))}
              </div>
            </div>
          ))
        )}
      </section>
      <HomeActivity menus={models} />
    </div>
  );
}
