// Where the UI lives: mounted under /admin/ in a host that keeps its own pages at /, with deep
// links that survive a reload; and OAuth sign-on (the mock provider) from the UI's sign-in page,
// ending signed in on the model page the person had opened.
import { expect } from 'chai';
import { describeBrowser, freePort } from '@fw/test-utils';
import { mockRegistration, startProvider } from '../../packages/oauth/src/test-setup.js';
import { apiToken, openPage, rowWith, signIn, startDemo, userWithMenus, type UiDemo } from './support.js';

describeBrowser('admin UI: hosting and sign-on', (browser) => {
  describe('mounted under /admin/ in a host with its own /', () => {
    let ui: UiDemo;
    before(async () => {
      ui = await startDemo({
        ui: { path: '/admin' },
        host: (app) =>
          app.use(async (ctx, next) => {
            if (ctx.path !== '/') return next();
            ctx.type = 'html';
            ctx.body = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title></head><body><h1>Host home</h1></body></html>';
          }),
      });
      const token = await apiToken(ui.url);
      await fetch(`${ui.url}/fw-api/data/modify/Book`, {
        method: 'POST',
        headers: { token, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Dune', genre: 'novel' }),
      });
    });
    after(async () => {
      await ui?.close();
    });

    it('signs in, navigates and reloads deep links under /admin/, leaving the host its /', async () => {
      const { context, page, errors } = await openPage(browser());
      try {
        await page.goto(`${ui.url}/admin/model/Book?sort=title,desc`);
        await page.waitForURL(`${ui.url}/admin/login`);
        await signIn(page);
        await page.waitForURL(`${ui.url}/admin/model/Book?sort=title,desc`);
        await rowWith(page, 'Dune').waitFor();
        // A reload of the deep link shows the same screen.
        await page.reload();
        await rowWith(page, 'Dune').waitFor();
        expect(page.url()).to.equal(`${ui.url}/admin/model/Book?sort=title,desc`);
        // The menu keeps to the mount path.
        expect(await page.locator('.fw-nav').getByRole('link', { name: 'Projects' }).getAttribute('href')).to.equal('/admin/model/Project');
        await page.locator('.fw-nav').getByRole('menuitem', { name: 'Projects' }).click();
        await page.waitForURL(`${ui.url}/admin/model/Project`);
        await page.locator('.fw-page-title', { hasText: 'Projects' }).waitFor();
        await page.goBack();
        await page.waitForURL(`${ui.url}/admin/model/Book?sort=title,desc`);
        await rowWith(page, 'Dune').waitFor();
        // The brand link goes to the UI's home, not the host's.
        await page.locator('.fw-brand').click();
        await page.waitForURL(`${ui.url}/admin/`);
        await page.locator('.fw-page-title', { hasText: 'Welcome' }).waitFor();
        // The host's own page is untouched.
        await page.goto(`${ui.url}/`);
        expect(await page.locator('h1').innerText()).to.equal('Host home');
        await page.goto(`${ui.url}/admin/model/Contract`);
        await page.locator('.fw-page-title', { hasText: 'Contracts' }).waitFor();
        expect(errors).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  });

  describe("under Content-Security-Policy: default-src 'self'", () => {
    let ui: UiDemo;
    before(async () => {
      ui = await startDemo({
        host: (app) => {
          // The strictest usual policy, on every answer (the UI's page included).
          app.middleware.unshift(async (ctx, next) => {
            await next();
            ctx.set('Content-Security-Policy', "default-src 'self'");
          });
        },
      });
    });
    after(async () => {
      await ui?.close();
    });

    it('signs in and shows a styled model page: no inline script, antd styled from its stylesheet', async () => {
      const { context, page, errors } = await openPage(browser());
      const refused: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy/.test(m.text()) && /script/i.test(m.text())) refused.push(m.text());
      });
      try {
        await page.goto(`${ui.url}/model/Book`);
        await page.waitForURL(`${ui.url}/login`);
        await signIn(page);
        await page.locator('.fw-add').waitFor();
        // antd's primary colour and the table's layout come from the stylesheet, not from injected styles.
        expect(await page.evaluate('getComputedStyle(document.querySelector(".fw-add")).backgroundColor')).to.equal('rgb(9, 88, 217)'); // antd's primary, one step darker for contrast (app.css)
        expect(await page.evaluate('getComputedStyle(document.querySelector(".ant-table-thead th")).fontWeight')).to.equal('600');
        expect(refused).to.deep.equal([]);
        expect(errors).to.deep.equal([]);
      } finally {
        await context.close();
      }
    });
  });

  describe('OAuth sign-on with the mock provider', () => {
    let provider: Awaited<ReturnType<typeof startProvider>>;
    let ui: UiDemo;
    before(async () => {
      provider = await startProvider();
      const port = await freePort();
      ui = await startDemo({
        port,
        // The UI's own sign-in page offers the provider (no host guard sending every page to it).
        oauth: { baseUrl: `http://127.0.0.1:${port}`, providers: mockRegistration(provider.issuer), guard: false },
      });
      await userWithMenus(ui, 'alice', ['Book', 'Book@ADD']);
      const token = await apiToken(ui.url);
      await fetch(`${ui.url}/fw-api/data/modify/Book`, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Dune' }) });
    });
    after(async () => {
      await ui?.close();
      await provider?.stop();
    });

    it('"Sign in with mock" goes through the provider and ends signed in on the model page the person opened', async () => {
      const { context, page } = await openPage(browser());
      try {
        await page.goto(`${ui.url}/model/Book`);
        await page.waitForURL(`${ui.url}/login`);
        const button = page.getByRole('link', { name: 'Sign in with mock' });
        await button.waitFor();
        expect(await button.getAttribute('href')).to.equal('/connect/mock');
        const visited: string[] = [];
        page.on('framenavigated', (frame) => {
          if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname);
        });
        await button.click();
        await page.waitForURL(`${ui.url}/model/Book`);
        await rowWith(page, 'Dune').waitFor();
        expect(visited).to.include('/auth.html');
        expect(await page.locator('.fw-user-menu').innerText()).to.contain('alice');
        // alice's role grants the page and Add only.
        expect(await page.locator('.fw-add').count()).to.equal(1);
        expect(await page.locator('.fw-row-edit').count()).to.equal(0);
        const { token } = JSON.parse((await page.evaluate('window.localStorage.getItem("_token")')) as string) as { token: string };
        const me = (await (await fetch(`${ui.url}/fw-api/userinfo`, { headers: { token } })).json()) as { account: string };
        expect(me.account).to.equal('alice');
      } finally {
        await context.close();
      }
    });
  });
});
