// The signed-in shell as App's lazy route loads it: with the part of antd's stylesheet the sign-in
// page does not need (tables, menus, drawers, pickers, …; see build/antd-styles.ts), and inside
// antd's App (the context of App.useApp()'s message, modal and notification), whose code the
// sign-in page does not need either.
import 'virtual:fw-antd/rest.css';
import { App as AntdApp } from 'antd';
import { Shell as ShellContent } from './Shell';

/** The shell inside antd's App. */
export function Shell() {
  return (
    <AntdApp>
      <ShellContent />
    </AntdApp>
  );
}
