// Where the person is (issue 20 §6): Home › folder › page, above the content, from the same menu
// tree the sider draws. Folders are shown by name (they are no pages); Home links back.
import { Breadcrumb } from 'antd';
import { HomeOutlined } from '@ant-design/icons';
import { useI18n } from '../i18n';
import { Link } from '../router';
import type { MenuEntry } from '../types';
import { menuIcon } from './icons';
import { menuLabel } from './menuLabel';

/** The menus from the outermost folder down to the entry of `key` ("m<id>"); empty when unknown. */
export function trailOf(menus: MenuEntry[], key: string | undefined): MenuEntry[] {
  if (!key) return [];
  const byId = new Map(menus.map((m) => [m.id, m]));
  const out: MenuEntry[] = [];
  let entry = byId.get(Number(key.slice(1)));
  // Bounded by the number of menus: a parent cycle written straight into the table cannot loop.
  while (entry && out.length <= menus.length) {
    out.unshift(entry);
    entry = entry.parentId === null ? undefined : byId.get(entry.parentId);
  }
  return out;
}

/** The menu keys of every folder a person can see. */
export function folderKeys(menus: MenuEntry[]): string[] {
  return menus.filter((m) => m.type === 'dir' && m.status === 'open').map((m) => `m${m.id}`);
}

/** Home › folder › page, for the page whose menu key is `selected`; nothing on the home page. */
export function Breadcrumbs({ menus, selected }: { menus: MenuEntry[]; selected: string | undefined }) {
  const { t } = useI18n();
  const trail = trailOf(menus, selected);
  if (trail.length === 0) return null;
  return (
    <Breadcrumb
      className="fw-breadcrumb"
      aria-label={t('nav.breadcrumb')}
      items={[
        {
          key: 'home',
          title: (
            <Link to="/">
              <HomeOutlined /> {t('app.home')}
            </Link>
          ),
        },
        ...trail.map((m, i) => ({
          key: m.id,
          title: (
            <span className={i === trail.length - 1 ? 'fw-breadcrumb-current' : 'fw-breadcrumb-folder'} aria-current={i === trail.length - 1 ? 'page' : undefined}>
              {menuIcon(m.icon, m.type)} {menuLabel(m, t)}
            </span>
          ),
        })),
      ]}
    />
  );
}
