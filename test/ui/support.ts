// Shared fixture of the admin UI browser tests: the demo app (examples/demo) on a temporary
// SQLite file, listening on a loopback port, and helpers that sign in the way a person does.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { encodePassword } from '@fw/login/client';
import { createDemoApp, type DemoApp, type DemoOptions } from '../../examples/demo/src/app.js';

/** The seeded administrator's password in every test demo. */
export const ADMIN_PASSWORD = 'harbour-lights-1';

/** A demo app listening on a loopback port. */
export interface UiDemo {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  demo: DemoApp;
  /** The temporary folder holding the database (and screenshots, under `shots/`). */
  dir: string;
  /** Where a test writes screenshots: `FW_UI_SHOTS`, else a folder removed by close. */
  shots: string;
  close(): Promise<void>;
}

/**
 * Starts the demo on a new SQLite file. The administrator has already chosen their password
 * (no forced change), unless `firstPassword` is set.
 */
export async function startDemo(
  options: Omit<DemoOptions, 'dbUrl' | 'adminPassword'> & {
    firstPassword?: boolean;
    /** Listen on this port (a sign-on's baseUrl must be known before the app is built). @default any free port */
    port?: number;
    /** Adds the host's own routes, after Fw's, before the app starts listening. */
    host?: (app: DemoApp['app']) => void;
  } = {},
): Promise<UiDemo> {
  const dir = mkdtempSync(join(tmpdir(), 'fw-ui-'));
  // FW_UI_SHOTS keeps the screenshots somewhere to look at; by default they go with the temporary folder.
  const shots = process.env.FW_UI_SHOTS ?? join(dir, 'shots');
  mkdirSync(shots, { recursive: true });
  const { firstPassword, port, host, ...demoOptions } = options;
  // Uploads go to the temporary folder too, never to the working directory's data/files.
  const demo = await createDemoApp({ filesDir: join(dir, 'files'), ...demoOptions, dbUrl: `sqlite:${join(dir, 'demo.db')}`, adminPassword: ADMIN_PASSWORD });
  demo.app.silent = true;
  if (!firstPassword) {
    const admin = await demo.store.users.findByAccount('admin');
    await demo.store.users.setPassword(admin!.id, ADMIN_PASSWORD);
  }
  host?.(demo.app);
  const server: Server = await new Promise((resolve) => {
    const s = demo.app.listen(port ?? 0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    demo,
    dir,
    shots,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await demo.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A token for `account`, through the login route. */
export async function apiToken(url: string, account = 'admin', password = ADMIN_PASSWORD): Promise<string> {
  const res = await fetch(`${url}/fw-api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ account, pwd: encodePassword(password) }),
  });
  const body = (await res.json()) as { pass: boolean; token?: string };
  expect(body.pass, `login of ${account}`).to.equal(true);
  return body.token!;
}

/** A fresh browser context (own storage) with a desktop-sized page; console errors are collected. */
export async function openPage(browser: Browser): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  const page = await context.newPage();
  // Fail a step well before the test's own timeout, so the error names the step.
  page.setDefaultTimeout(30_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { context, page, errors };
}

/** Fills in and sends the sign-in form. */
export async function submitSignIn(page: Page, account = 'admin', password = ADMIN_PASSWORD): Promise<void> {
  await page.locator('#login_account').fill(account);
  await page.locator('#login_password').fill(password);
  await page.locator('#login button[type=submit]').click();
}

/** Signs in on the sign-in page as a person does; resolves once the shell is up. */
export async function signIn(page: Page, account = 'admin', password = ADMIN_PASSWORD): Promise<void> {
  await submitSignIn(page, account, password);
  await page.locator('.fw-header').waitFor();
}

/**
 * Opens `path` (under `base`, default the app root) already signed in: the token is stored
 * exactly as the sign-in page and /auth.html store it.
 */
export async function openSignedIn(page: Page, url: string, path: string, token: string, base = '/'): Promise<void> {
  // The token goes into the origin's storage from a small file of the build (the icon), not from
  // the sign-in page: one load of the app per test instead of two (each costs the browser about a
  // second of CPU, which the browser suites pay a hundred times).
  await page.goto(`${url}${base}favicon.svg`);
  await page.evaluate(`window.localStorage.setItem('_token', ${JSON.stringify(JSON.stringify({ token }))})`);
  await page.goto(`${url}${base}${path.replace(/^\//, '')}`);
  await page.locator('.fw-header').waitFor();
}

/** The rows of the table on screen, as the texts of their cells. */
export async function tableTexts(page: Page): Promise<string[][]> {
  const rows = page.locator('.ant-table-tbody tr.ant-table-row');
  const out: string[][] = [];
  for (let i = 0; i < (await rows.count()); i += 1) out.push((await rows.nth(i).locator('td').allInnerTexts()).map((s) => s.trim()));
  return out;
}

/** The table row whose cells include `text`. */
export function rowWith(page: Page, text: string) {
  return page.locator('.ant-table-tbody tr.ant-table-row').filter({ has: page.locator('td', { hasText: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) });
}

/**
 * A row's action (`fw-row-edit`, `fw-row-print`, …): its button on a wide screen; on a phone, where
 * row actions collapse into one "…" menu, that menu is opened and its entry returned (a link
 * action's entry holds the `<a>`).
 */
export async function rowAction(page: Page, row: Locator, className: string): Promise<Locator> {
  const more = row.locator('.fw-row-more');
  if ((await more.count()) === 0) return row.locator(`.${className}`);
  await more.click();
  const entry = page.locator(`.ant-dropdown:not(.ant-dropdown-hidden) .${className}`);
  await entry.waitFor();
  return entry;
}

/**
 * Follows the requests of `page` from now on; `quiet()` resolves once none has been in flight for
 * `ms` (Playwright's `networkidle` counts the live table's stream, a `fetch` that stays open, and
 * so never comes once the stream opened before the page fell quiet).
 */
export function watchNetwork(page: Page, ms = 500): { quiet: (timeoutMs?: number) => Promise<void> } {
  const inFlight = new Set<unknown>();
  let lastChange = Date.now();
  const streaming = (url: string) => new URL(url).pathname.includes('/data/events/');
  page.on('request', (req) => {
    if (streaming(req.url())) return;
    inFlight.add(req);
    lastChange = Date.now();
  });
  const done = (req: unknown) => {
    if (inFlight.delete(req)) lastChange = Date.now();
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return {
    async quiet(timeoutMs = 30_000) {
      const end = Date.now() + timeoutMs;
      while (inFlight.size > 0 || Date.now() - lastChange < ms) {
        if (Date.now() > end) throw new Error(`the network did not fall quiet within ${timeoutMs} ms (${inFlight.size} request(s) in flight)`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

/**
 * Waits until `expression` is truthy in the page. Polls with `page.evaluate`, which the UI's
 * content security policy (no 'unsafe-eval') lets through; `page.waitForFunction` compiles its
 * predicate inside the page, which the policy refuses.
 */
// The default matches the pages' own step limit (openPage: 30 s): on a CI machine running the
// browser files beside the rest of the suite, 10 s was too short for a table to load 50 rows.
export async function waitUntil(page: Page, expression: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await page.evaluate(expression)) return;
      last = undefined;
    } catch (error) {
      last = error; // an element not there yet, or a page between two documents: try again
    }
    if (Date.now() > end) throw new Error(`waitUntil: still false after ${timeoutMs} ms: ${expression}`, { cause: last });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Takes a screenshot once antd's opening animations (drawers, modals, popups) have finished. */
export async function shot(page: Page, path: string): Promise<void> {
  await waitUntil(page, 'document.getAnimations().every((a) => a.playState !== "running" || a.effect?.getTiming().iterations === Infinity)');
  await page.screenshot({ path });
}

/**
 * A user (not an administrator) whose one role grants exactly the menus with these codes
 * (`Book` for the model's page and query, `Book@ADD`, `Book@EDIT` … for its buttons). The
 * password is already chosen, so no forced change.
 */
export async function userWithMenus(ui: UiDemo, account: string, codes: string[], password = `${account}-pass-1`): Promise<{ account: string; password: string }> {
  const { store } = ui.demo;
  const menuIds: number[] = [];
  for (const code of codes) {
    const menu = await store.menus.findByCode(code);
    expect(menu, `menu ${code}`).to.not.equal(undefined);
    menuIds.push(menu!.id);
  }
  const role = await store.roles.create({ code: `role-${account}`, name: `Role of ${account}` });
  await store.roles.setMenus(role.id, menuIds);
  const user = await store.users.create({ account, name: account, password });
  await store.users.setPassword(user.id, password);
  await store.users.setRoles(user.id, [role.id]);
  return { account, password };
}
