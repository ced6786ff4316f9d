// The home page (issue 20 §6): what the person may work on, with how many rows each holds, what
// they changed lately and where their account was signed in to (failed attempts too), each
// linking on: a count to its table, an edit to its row, a sign-in to the person's sessions.
import { useEffect, useMemo } from 'react';
import { Skeleton, Typography } from 'antd';
import { useCounts } from '../activity';
import { takeReturn } from '../auth';
import { useI18n } from '../i18n';
import { Link, navigate } from '../router';
import type { MenuEntry } from '../types';
import { HomeActivity } from './HomeActivity';
import { menuIcon } from './icons';

/** The model menus a person navigates to (no folders, functions, hidden or disabled entries). */
function modelMenus(menus: MenuEntry[]): MenuEntry[] {
  return menus.filter((m) => (m.type === 'table' || m.type === 'tree') && m.status === 'open' && m.value);
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
  const models = useMemo(() => modelMenus(menus), [menus]);
  const counts = useCounts(models.map((m) => m.value!));
  // A model the person may open but not query (403) gets no tile: it has nothing to count.
  const tiles = models.flatMap((menu, i) => {
    const count = counts[i];
    return count === null ? [] : [{ menu, count }];
  });
  return (
    <div className="fw-home">
      <Typography.Title level={3} className="fw-page-title">
        {t('app.welcome', { name })}
      </Typography.Title>
      <Typography.Paragraph type="secondary">{t('app.welcomeHint')}</Typography.Paragraph>
      <section aria-labelledby="fw-home-counts-title">
        <Typography.Title level={4} id="fw-home-counts-title" className="fw-home-section">
          {t('home.counts')}
        </Typography.Title>
        {tiles.length === 0 ? (
          <Typography.Paragraph type="secondary">{t('home.noModels')}</Typography.Paragraph>
        ) : (
          <div className="fw-home-counts">
            {tiles.map(({ menu, count }) => (
              <CountTile key={menu.id} menu={menu} count={count} />
            ))}
          </div>
        )}
      </section>
      <HomeActivity menus={models} />
    </div>
  );
}
