// Menu icons by name. A menu row stores a name ("BookOutlined", or "book"); only the icons listed
// here are bundled, so the menu costs a few kB instead of every antd icon. An unknown name falls
// back to the icon of the menu's type (folder, table, tree, page, link). fwAdmin's built-in menus
// use these names (packages/admin/src/default-menus.ts).
import type { ReactNode } from 'react';
import {
  ApartmentOutlined,
  ApiOutlined,
  AppstoreOutlined,
  BarChartOutlined,
  BookOutlined,
  CalendarOutlined,
  CheckSquareOutlined,
  CloudOutlined,
  ContainerOutlined,
  DashboardOutlined,
  DatabaseOutlined,
  DollarOutlined,
  FileOutlined,
  FileSearchOutlined,
  FileTextOutlined,
  FolderOutlined,
  GlobalOutlined,
  HistoryOutlined,
  HomeOutlined,
  KeyOutlined,
  LinkOutlined,
  LockOutlined,
  LoginOutlined,
  MenuOutlined,
  MessageOutlined,
  ProjectOutlined,
  QuestionOutlined,
  RobotOutlined,
  SafetyOutlined,
  SettingOutlined,
  ShopOutlined,
  SolutionOutlined,
  StarOutlined,
  TableOutlined,
  TagsOutlined,
  TeamOutlined,
  ToolOutlined,
  UnorderedListOutlined,
  UserOutlined,
} from '@ant-design/icons';

const ICONS: Record<string, ReactNode> = {
  apartment: <ApartmentOutlined />,
  api: <ApiOutlined />,
  appstore: <AppstoreOutlined />,
  'bar-chart': <BarChartOutlined />,
  book: <BookOutlined />,
  calendar: <CalendarOutlined />,
  'check-square': <CheckSquareOutlined />,
  cloud: <CloudOutlined />,
  container: <ContainerOutlined />,
  dashboard: <DashboardOutlined />,
  database: <DatabaseOutlined />,
  dollar: <DollarOutlined />,
  file: <FileOutlined />,
  'file-search': <FileSearchOutlined />,
  'file-text': <FileTextOutlined />,
  folder: <FolderOutlined />,
  global: <GlobalOutlined />,
  history: <HistoryOutlined />,
  home: <HomeOutlined />,
  key: <KeyOutlined />,
  link: <LinkOutlined />,
  lock: <LockOutlined />,
  login: <LoginOutlined />,
  menu: <MenuOutlined />,
  message: <MessageOutlined />,
  project: <ProjectOutlined />,
  question: <QuestionOutlined />,
  robot: <RobotOutlined />,
  safety: <SafetyOutlined />,
  setting: <SettingOutlined />,
  shop: <ShopOutlined />,
  solution: <SolutionOutlined />,
  star: <StarOutlined />,
  table: <TableOutlined />,
  tags: <TagsOutlined />,
  team: <TeamOutlined />,
  tool: <ToolOutlined />,
  'unordered-list': <UnorderedListOutlined />,
  user: <UserOutlined />,
};

/** "BookOutlined", "book-outlined", "book", "fa fa-book" → "book". */
function normalise(name: string): string {
  const last = name.trim().split(/\s+/).pop() ?? '';
  return last
    .replace(/^fa-/, '')
    .replace(/(Outlined|Filled|TwoTone)$/, '')
    .replace(/-(outlined|filled|twotone)$/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
}

/** The icon a menu names, or a fallback by menu type. */
export function menuIcon(name: string | null, type: string): ReactNode {
  if (name) {
    const icon = ICONS[normalise(name)];
    if (icon) return icon;
  }
  if (type === 'dir') return <FolderOutlined />;
  if (type === 'link') return <LinkOutlined />;
  if (type === 'page') return <FileOutlined />;
  if (type === 'tree') return <ApartmentOutlined />;
  if (type === 'table') return <TableOutlined />;
  return undefined;
}
