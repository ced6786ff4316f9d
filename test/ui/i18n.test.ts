// Issue 20 §8: six languages, complete. A person switches the language and the built-in Users
// page (title, column titles, a choice), the menu and antd's own strings follow; the choice is
// remembered; a browser in German starts in German; a host model's declared Chinese titles show.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openPage, openSignedIn, shot, startDemo, waitUntil, type UiDemo } from './support.js';

const SHOTS = process.env.FW_UI_SHOTS;

/** Chooses a language in the header's switch, as a person does. */
async function chooseLanguage(page: Page, name: string): Promise<void> {
  await page.locator('.fw-header .fw-locale-switch').click();
  await page.locator('.ant-select-item-option', { hasText: name }).click();
}

/** The page title and the table's column titles once the title reads `title`. */
async function modelPage(page: Page, title: string): Promise<{ columns: string[] }> {
  await waitUntil(page, `document.querySelector('.fw-page-title')?.textContent === ${JSON.stringify(title)}`);
  const columns = (await page.locator('.ant-table-thead th').allInnerTexts()).map((s) => s.trim()).filter(Boolean);
  return { columns };
}

/** The text of the `field` cell in the row whose account is `account`. */
async function cellOf(page: Page, field: string): Promise<string> {
  return (await page.locator(`.ant-table-tbody tr.ant-table-row td.fw-col-${field}`).first().innerText()).trim();
}

describeBrowser('admin UI: six languages', (browser) => {
  let ui: UiDemo;
  let token: string;
  before(async function () {
    this.timeout(120_000);
    ui = await startDemo();
    const book = ui.demo.registry.get('Book')!;
    await ui.demo.store.knex(book.table).insert({ [book.fields.title!.column]: 'Ubik', [book.fields.genre!.column]: 'novel', [book.fields.price!.column]: 9.5 });
    token = await apiToken(ui.url);
  });
  after(async () => {
    await ui?.close();
  });

  it('简体中文: the Users page, its columns, a choice, the menu and antd follow; the choice is remembered', async () => {
    const { context, page, errors } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/FwUser', token);
      expect((await modelPage(page, 'Users')).columns).to.include.members(['Account', 'Name', 'Status']);
      expect(await cellOf(page, 'status')).to.equal('Normal');

      await chooseLanguage(page, '简体中文');
      const zh = await modelPage(page, '用户');
      expect(zh.columns).to.include.members(['账号', '名称', '管理员', '状态', '过期时间']);
      expect(zh.columns).to.not.include('Account');
      expect(await cellOf(page, 'status')).to.equal('正常');
      expect(await page.evaluate('document.documentElement.lang')).to.equal('zh-CN');
      // Fw's strings and antd's own (the pager) too.
      await waitUntil(page, `document.querySelector('.ant-pagination-total-text')?.textContent.startsWith('共')`);
      const nav = (await page.locator('.fw-nav').innerText()).split('\n').map((s) => s.trim());
      expect(nav).to.include.members(['用户', '角色', '菜单', '登录日志', '操作日志']);
      expect(nav).to.not.include('Users');

      // Remembered: a reload comes back in Chinese.
      await page.reload();
      await modelPage(page, '用户');
      expect(await page.evaluate("localStorage.getItem('fw-locale')")).to.equal('zh-CN');
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('日本語 and Deutsch: spot checks on the Users page and its edit form', async () => {
    const { context, page } = await openPage(browser());
    try {
      await openSignedIn(page, ui.url, '/model/FwUser', token);
      await modelPage(page, 'Users');
      await chooseLanguage(page, '日本語');
      const ja = await modelPage(page, 'ユーザー');
      expect(ja.columns).to.include.members(['アカウント', '状態']);
      expect(await cellOf(page, 'status')).to.equal('正常');
      if (SHOTS) await shot(page, `${SHOTS}/i18n-ja-users-1280.png`);

      await chooseLanguage(page, 'Deutsch');
      const de = await modelPage(page, 'Benutzer');
      expect(de.columns).to.include.members(['Konto', 'Status', 'Läuft ab', 'Erlaubte IP-Adressen']);
      expect(await cellOf(page, 'status')).to.equal('Normal');
      // The add drawer: its title and the form's labels.
      await page.getByRole('button', { name: 'Hinzufügen' }).click();
      await waitUntil(page, `document.querySelector('.ant-drawer-title')?.textContent === 'Benutzer hinzufügen'`);
      const labels = (await page.locator('.ant-drawer .ant-form-item-label').allInnerTexts()).map((s) => s.trim());
      expect(labels).to.include.members(['Konto', 'Passwort', 'Administrator', 'Rollen', 'Organisationen']);
      if (SHOTS) await shot(page, `${SHOTS}/i18n-de-user-form-1366.png`);
      await page.getByRole('button', { name: 'Abbrechen' }).click();
    } finally {
      await context.close();
    }
  });

  it('a host model shows its declared Chinese titles, and English where it declares none (Deutsch)', async () => {
    const { context, page } = await openPage(browser());
    try {
      await page.setViewportSize({ width: 1366, height: 800 });
      await openSignedIn(page, ui.url, '/model/Book', token);
      await modelPage(page, 'Books');
      await chooseLanguage(page, '简体中文');
      const zh = await modelPage(page, '图书');
      expect(zh.columns).to.include.members(['书名', 'ISBN', '体裁', '价格', '出版日期', '在印']);
      expect(await cellOf(page, 'genre')).to.equal('小说');
      const nav = (await page.locator('.fw-nav').innerText()).split('\n').map((s) => s.trim());
      expect(nav).to.include.members(['图书', '作者', '分类']);
      if (SHOTS) await shot(page, `${SHOTS}/i18n-zh-CN-books-1366.png`);

      // German is not declared for Book: English, the fallback; the UI's own strings are German.
      await chooseLanguage(page, 'Deutsch');
      const de = await modelPage(page, 'Books');
      expect(de.columns).to.include.members(['Title', 'Genre', 'Price']);
      expect(await cellOf(page, 'genre')).to.equal('Novel');
      await page.getByRole('button', { name: 'Hinzufügen' }).waitFor();
      if (SHOTS) await shot(page, `${SHOTS}/i18n-de-books-1366.png`);
      await openSignedIn(page, ui.url, '/model/FwLoginLog', token);
      await modelPage(page, 'Anmeldeprotokoll');
      // Date-times read the same in every language, table and form alike (YYYY-MM-DD HH:mm:ss).
      expect(await cellOf(page, 'loginTime')).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      if (SHOTS) await shot(page, `${SHOTS}/i18n-de-login-log-1366.png`);
    } finally {
      await context.close();
    }
  });

  it("the browser's language picks the first language; the switch offers all six in their own names", async () => {
    const starts: Array<[string, string]> = [
      ['de-AT', 'Anmelden'],
      ['fr-CA', 'Se connecter'],
      ['es-MX', 'Iniciar sesión'],
      ['ja-JP', 'サインイン'],
      ['zh-TW', '登录'],
      ['pt-BR', 'Sign in'],
    ];
    for (const [locale, title] of starts) {
      const context = await browser().newContext({ locale, viewport: { width: 1280, height: 800 } });
      try {
        const page = await context.newPage();
        await page.goto(`${ui.url}/login`);
        await waitUntil(page, `document.querySelector('#login button[type=submit]')?.textContent.replace(/\\s/g, '') === ${JSON.stringify(title.replace(/\s/g, ''))}`);
        if (SHOTS && (locale === 'fr-CA' || locale === 'ja-JP')) {
          await page.setViewportSize({ width: 390, height: 800 });
          await shot(page, `${SHOTS}/i18n-sign-in-${locale}-390.png`);
        }
        if (locale === 'de-AT') {
          await page.locator('.fw-locale-switch').click();
          const options = (await page.locator('.ant-select-item-option').allInnerTexts()).map((s) => s.trim());
          expect(options).to.deep.equal(['English', '简体中文', '日本語', 'Deutsch', 'Français', 'Español']);
        }
      } finally {
        await context.close();
      }
    }
  });
});
