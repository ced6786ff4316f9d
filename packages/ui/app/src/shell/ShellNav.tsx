// The menu's frame (issue 20 §4, §6): a sider on tablets and desktops that folds to its icons
// (remembered in localStorage), a drawer on phones opened by a labelled button in the header and
// closed after every navigation. The folders that are open are remembered too, and the folder of
// the current page always opens.
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore, type RefObject } from 'react';
import { Button, Drawer, Layout, Menu, type MenuProps } from 'antd';
import { MenuFoldOutlined, MenuOutlined, MenuUnfoldOutlined } from '@ant-design/icons';
import { config } from '../config';
import { useI18n } from '../i18n';
import { useLocation } from '../router';
import './shell.css';

/** Below this width the menu is a drawer: antd's `md` breakpoint (a 768 px tablet keeps the sider). */
const PHONE_QUERY = '(max-width: 767.98px)';
const COLLAPSED_KEY = 'fw-nav-collapsed';
const OPEN_KEY = 'fw-nav-open';

function readJson<T>(key: string): T | undefined {
  try {
    const text = window.localStorage.getItem(key);
    return text === null ? undefined : (JSON.parse(text) as T);
  } catch {
    return undefined;
  }
}

function subscribePhone(listener: () => void): () => void {
  const query = window.matchMedia(PHONE_QUERY);
  query.addEventListener('change', listener);
  return () => query.removeEventListener('change', listener);
}

/** True on a phone-sized window; follows resizes and rotation. */
export function usePhone(): boolean {
  return useSyncExternalStore(subscribePhone, () => window.matchMedia(PHONE_QUERY).matches);
}

/** The state the header's toggle and the menu share. */
export interface ShellNavState {
  phone: boolean;
  collapsed: boolean;
  drawerOpen: boolean;
  toggle(): void;
  closeDrawer(): void;
  toggleRef: RefObject<HTMLButtonElement | null>;
}

/** The menu's state: folded or not (remembered), the phone drawer open or not (closed on navigation). */
export function useShellNav(): ShellNavState {
  const phone = usePhone();
  const { pathname } = useLocation();
  // A window narrower than a laptop starts folded, unless the person chose otherwise before.
  const [collapsed, setCollapsed] = useState<boolean>(() => readJson<boolean>(COLLAPSED_KEY) ?? window.matchMedia('(max-width: 991.98px)').matches);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  useEffect(() => setDrawerOpen(false), [pathname]);
  const toggle = useCallback(() => {
    if (phone) {
      setDrawerOpen((open) => !open);
      return;
    }
    setCollapsed((was) => {
      window.localStorage.setItem(COLLAPSED_KEY, JSON.stringify(!was));
      return !was;
    });
  }, [phone]);
  const closeDrawer = useCallback(() => setDrawerOpen(false), []);
  return { phone, collapsed, drawerOpen, toggle, closeDrawer, toggleRef };
}

/** The header's menu button: opens the drawer on a phone, folds the sider elsewhere. */
export function NavToggle({ nav }: { nav: ShellNavState }) {
  const { t } = useI18n();
  if (nav.phone)
    return (
      <Button
        ref={nav.toggleRef}
        type="text"
        icon={<MenuOutlined />}
        className="fw-nav-toggle"
        aria-label={t('nav.menu')}
        title={t('nav.menu')}
        aria-expanded={nav.drawerOpen}
        aria-controls="fw-nav-drawer"
        onClick={nav.toggle}
      >
        <span className="fw-nav-toggle-text">{t('nav.menu')}</span>
      </Button>
    );
  const label = nav.collapsed ? t('nav.expand') : t('nav.collapse');
  return (
    <Button
      ref={nav.toggleRef}
      type="text"
      icon={nav.collapsed ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
      className="fw-nav-toggle"
      aria-label={label}
      title={label}
      aria-expanded={!nav.collapsed}
      onClick={nav.toggle}
    />
  );
}

/** The open folders: remembered, all of them at first, and always those of the current page. */
function useOpenKeys(folders: string[], current: string[]): [string[], (keys: string[]) => void] {
  const [open, setOpen] = useState<string[] | undefined>(() => readJson<string[]>(OPEN_KEY));
  const shown = useMemo(() => [...new Set([...(open ?? folders), ...current])], [open, folders, current]);
  const change = useCallback((keys: string[]) => {
    window.localStorage.setItem(OPEN_KEY, JSON.stringify(keys));
    setOpen(keys);
  }, []);
  return [shown, change];
}

/** What the menu shows. */
export interface ShellNavProps {
  nav: ShellNavState;
  items: NonNullable<MenuProps['items']>;
  selected: string | undefined;
  /** Keys of every folder. */
  folders: string[];
  /** Keys of the folders holding the current page, outermost first. */
  current: string[];
}

/** The menu: in the sider, or in the phone's drawer. */
export function ShellNav({ nav, items, selected, folders, current }: ShellNavProps) {
  const { t } = useI18n();
  const [openKeys, setOpenKeys] = useOpenKeys(folders, current);
  const menu = (inline: boolean) => (
    <Menu
      mode="inline"
      items={items}
      selectedKeys={selected ? [selected] : []}
      // A folded sider shows folders as pop-ups: their open state is the menu's own then.
      {...(inline ? { openKeys, onOpenChange: setOpenKeys } : {})}
      onClick={nav.closeDrawer}
      className="fw-nav"
      aria-label={t('nav.label')}
    />
  );
  if (nav.phone)
    return (
      <Drawer
        id="fw-nav-drawer"
        placement="left"
        open={nav.drawerOpen}
        onClose={nav.closeDrawer}
        size={280}
        title={config.title}
        className="fw-nav-drawer"
        afterOpenChange={(open) => {
          if (!open) nav.toggleRef.current?.focus();
        }}
      >
        {menu(true)}
      </Drawer>
    );
  return (
    <Layout.Sider width={220} collapsedWidth={64} collapsible collapsed={nav.collapsed} trigger={null} className="fw-sider">
      {menu(!nav.collapsed)}
    </Layout.Sider>
  );
}
