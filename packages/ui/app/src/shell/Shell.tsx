// The frame around every signed-in screen: the menu tree from GET /menu, the user menu and the
// locale switch; the content follows the app path.
import { lazy, Suspense, useEffect, useMemo, useRef } from 'react';
import { App, Button, Dropdown, Layout, Result, Spin, type MenuProps } from 'antd';
import { DownOutlined, KeyOutlined, LaptopOutlined, LogoutOutlined, TeamOutlined, UserOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { onPasswordChangeRequired } from '../client/api';
import { useLogout } from '../client/mutations';
import { clearToken } from '../auth';
import { config } from '../config';
import { useFocusRescue } from '../focus';
import { useI18n } from '../i18n';
import type { MessageKey } from '../i18n/en';
import { Link, navigate, useLocation } from '../router';
import { keys, useMenu, useUserInfo } from '../client/queries';
import type { MenuEntry, UserInfo } from '../types';
import { ChangePassword, passwordPath } from './ChangePassword';
import { LocaleSwitch } from './LocaleSwitch';
import { ThemeSwitch } from './ThemeSwitch';
import { OnlineUsers } from './OnlineUsers';
import { MySessions } from './Sessions';
import { PermissionExplainer } from '../power/PermissionExplainer';
import { SafetyCertificateOutlined } from '@ant-design/icons';
import { MAIN_ID, SkipLink } from './SkipLink';
import { NavToggle, ShellNav, useShellNav } from './ShellNav';
import { Breadcrumbs, folderKeys } from './Breadcrumbs';
import { HomePage } from './HomePage';
import { menuIcon } from './icons';
import { menuLabel } from './menuLabel';
import { linkHref, pageSrc } from './menuTargets';

// The model page (table, forms, pickers) is loaded when first needed, keeping the first screen small.
// The model page's chunk (the one prefetch.ts's loadModelPage asks for), imported here directly so
// the shell does not import back the module that loads it.
const ModelPage = lazy(() => import('../model/ModelPage'));

type MenuItem = NonNullable<MenuProps['items']>[number];

/** The entries a person navigates: no function menus (buttons), no hidden or disabled ones. */
function navigable(menus: MenuEntry[]): MenuEntry[] {
  return menus.filter((m) => m.type !== 'function' && m.status === 'open');
}

/** The URL path of a model page. */
export function modelPath(fw: string): string {
  return `/model/${encodeURIComponent(fw)}`;
}

function buildItems(menus: MenuEntry[], t: (key: MessageKey) => string): MenuItem[] {
  const shown = navigable(menus);
  const ids = new Set(shown.map((m) => m.id));
  const children = new Map<number | null, MenuEntry[]>();
  for (const m of shown) {
    // An entry whose parent the user cannot see is shown at the top rather than lost.
    const parent = m.parentId !== null && ids.has(m.parentId) ? m.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), m]);
  }
  const build = (parent: number | null): MenuItem[] =>
    (children.get(parent) ?? []).flatMap((m): MenuItem[] => {
      const icon = menuIcon(m.icon, m.type);
      const key = `m${m.id}`;
      if (m.type === 'dir') {
        const items = build(m.id);
        return items.length > 0 ? [{ key, icon, label: menuLabel(m, t), children: items }] : [];
      }
      if ((m.type === 'table' || m.type === 'tree') && m.value) return [{ key, icon, label: <Link to={modelPath(m.value)}>{m.name}</Link> }];
      // A link opens in a new tab, never in the app's frame; a page is framed only when it is a
      // same-origin path (menuTargets.ts). Anything else is not drawn at all.
      const link = m.type === 'link' ? linkHref(m.value) : undefined;
      if (link)
        return [
          {
            key,
            icon,
            label: (
              <a href={link} target="_blank" rel="noopener noreferrer">
                {m.name}
              </a>
            ),
          },
        ];
      if (m.type === 'page' && pageSrc(m.value)) return [{ key, icon, label: <Link to={`/page/${m.id}`}>{m.name}</Link> }];
      return [];
    });
  return build(null);
}

function selectedKey(menus: MenuEntry[], pathname: string): string | undefined {
  const model = /^\/model\/([^/]+)/.exec(pathname);
  if (model) {
    const fw = decodeURIComponent(model[1]!);
    const entry = navigable(menus).find((m) => (m.type === 'table' || m.type === 'tree') && m.value === fw);
    return entry ? `m${entry.id}` : undefined;
  }
  const page = /^\/page\/(\d+)/.exec(pathname);
  return page ? `m${page[1]}` : undefined;
}

function openKeys(menus: MenuEntry[], key: string | undefined): string[] {
  if (!key) return [];
  const byId = new Map(menus.map((m) => [m.id, m]));
  const out: string[] = [];
  let entry = byId.get(Number(key.slice(1)));
  while (entry && entry.parentId !== null) {
    out.push(`m${entry.parentId}`);
    entry = byId.get(entry.parentId);
  }
  return out;
}

function FramePage({ menus, id }: { menus: MenuEntry[]; id: number }) {
  const { t } = useI18n();
  const entry = navigable(menus).find((m) => m.id === id && m.type === 'page');
  const src = pageSrc(entry?.value);
  if (!entry || !src) return <Result status="404" subTitle={t('app.notFound')} />;
  return <iframe className="fw-frame" src={src} title={t('page.frameTitle', { name: entry.name })} />;
}

/** Who is signed in, as the header names them: "Name (account)", or the account alone. */
export function signedInAs(user: Pick<UserInfo, 'name' | 'account'>): string {
  return user.name && user.name !== user.account ? `${user.name} (${user.account})` : user.account;
}

/** The header's account label: the name may be cut short on a narrow screen, the account last. */
function AccountName({ user }: { user: Pick<UserInfo, 'name' | 'account'> }) {
  const named = Boolean(user.name) && user.name !== user.account;
  return (
    <span className="fw-user-name">
      {named && <span className="fw-user-display">{user.name}</span>}
      <span className="fw-user-account">{named ? ` (${user.account})` : user.account}</span>
    </span>
  );
}

/**
 * Tells the person when the account they work as changes under them (the token was replaced in
 * another tab or by a frame): the header already names the new account; this says so out loud.
 */
function useAccountChangeNotice(user: UserInfo | undefined): void {
  const { t } = useI18n();
  const { message } = App.useApp();
  const last = useRef<number | undefined>(undefined);
  useEffect(() => {
    if (!user) return;
    const before = last.current;
    last.current = user.id;
    if (before !== undefined && before !== user.id)
      void message.warning({ key: 'fw-session-switched', content: t('session.switched', { name: signedInAs(user) }), duration: 8, className: 'fw-session-switched' });
  }, [user, message, t]);
}

/** The signed-in application. */
export function Shell() {
  const { t } = useI18n();
  const { pathname } = useLocation();
  const queryClient = useQueryClient();
  const user = useUserInfo();
  // The server answers nothing but the password change to a user who must change the password
  // (403 PASSWORD_CHANGE_REQUIRED), so the menu is not asked for until then.
  const mustChange = user.data?.resetPwd === true;
  const menu = useMenu(user.isSuccess && !mustChange);

  // A 403 PASSWORD_CHANGE_REQUIRED from any request (a password reset while the app was open)
  // shows the forced-change screen at once.
  useEffect(
    () =>
      onPasswordChangeRequired(() => {
        queryClient.setQueryData<UserInfo>(keys.userinfo, (info) => (info ? { ...info, resetPwd: true } : info));
      }),
    [queryClient],
  );
  const menus = useMemo(() => menu.data ?? [], [menu.data]);
  const items = useMemo(() => buildItems(menus, t), [menus, t]);
  const selected = selectedKey(menus, pathname);
  const folders = useMemo(() => folderKeys(menus), [menus]);
  const current = useMemo(() => openKeys(menus, selected).reverse(), [menus, selected]);
  const nav = useShellNav();
  useAccountChangeNotice(user.data);
  useFocusRescue();

  const signOut = useLogout();
  const logout = async () => {
    try {
      await signOut.mutateAsync();
    } catch {
      // Signed out either way: the token is forgotten below.
    }
    clearToken();
    queryClient.clear();
    navigate('/login', { replace: true });
  };

  if (user.isPending) return <Spin fullscreen tip={t('app.loading')} />;
  if (!user.isError && user.data.resetPwd) return <ChangePassword forced account={user.data.account} onSignOut={() => void logout()} />;
  if (user.isError || menu.isError)
    return (
      <Result
        status="error"
        title={t('app.error')}
        subTitle={(user.error ?? menu.error)?.message}
        extra={<Button onClick={() => void Promise.all([user.refetch(), menu.refetch()])}>{t('app.retry')}</Button>}
      />
    );
  if (menu.isPending) return <Spin fullscreen tip={t('app.loading')} />;
  if (pathname === '/password') return <ChangePassword forced={false} account={user.data.account} />;

  const userMenu: MenuProps['items'] = [
    { key: 'pwd', icon: <KeyOutlined />, label: t('user.changePassword'), onClick: () => navigate(passwordPath()) },
    { key: 'sessions', icon: <LaptopOutlined />, label: t('user.sessions'), onClick: () => navigate('/sessions') },
    { key: 'permissions', icon: <SafetyCertificateOutlined />, label: t('perm.myPermissions'), onClick: () => navigate('/permissions') },
    ...(user.data.isAdmin ? [{ key: 'online', icon: <TeamOutlined />, label: t('user.onlineUsers'), onClick: () => navigate('/online-users') }] : []),
    { type: 'divider' },
    { key: 'logout', icon: <LogoutOutlined />, label: t('user.logout'), onClick: () => void logout() },
  ];

  const model = /^\/model\/([^/?]+)$/.exec(pathname);
  const page = /^\/page\/(\d+)$/.exec(pathname);
  let content;
  if (pathname === '/') content = <HomePage name={user.data.name || user.data.account} menus={menus} />;
  else if (model) content = <ModelPage key={model[1]} fw={decodeURIComponent(model[1]!)} />;
  else if (page) content = <FramePage menus={menus} id={Number(page[1])} />;
  else if (pathname === '/sessions') content = <MySessions />;
  else if (pathname === '/permissions') content = <PermissionExplainer />;
  else if (pathname === '/online-users' && user.data.isAdmin) content = <OnlineUsers selfId={user.data.id} />;
  else content = <Result status="404" subTitle={t('app.notFound')} />;

  return (
    <Layout className="fw-shell">
      <SkipLink />
      <Layout.Header className="fw-header">
        <NavToggle nav={nav} />
        <Link to="/" className="fw-brand">
          {config.title}
        </Link>
        <div className="fw-header-right">
          <LocaleSwitch />
          <ThemeSwitch />
          <Dropdown menu={{ items: userMenu }} trigger={['click']}>
            <Button type="text" icon={<UserOutlined />} className="fw-user-menu" title={signedInAs(user.data)}>
              <AccountName user={user.data} /> <DownOutlined className="fw-user-caret" />
            </Button>
          </Dropdown>
        </div>
      </Layout.Header>
      <Layout className="fw-body">
        <ShellNav nav={nav} items={items} selected={selected} folders={folders} current={current} />
        <Layout.Content className="fw-content" id={MAIN_ID}>
          <Breadcrumbs menus={menus} selected={selected} />
          <Suspense fallback={<Spin tip={t('app.loading')} />}>{content}</Suspense>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
