// Dark mode (issue 20 §9): antd's dark algorithm from a stylesheet of the build, following the
// system's prefers-color-scheme by default, switchable in the header (system / light / dark) and
// remembered across reloads; text stays readable (axe-core's colour-contrast rule).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { describeBrowser } from '@fw/test-utils';
import { apiToken, openSignedIn, shot, startDemo, waitUntil, type UiDemo } from './support.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Relative luminance (0 black … 1 white) of the computed background of the first element matching `selector`. */
async function backgroundLuminance(page: Page, selector: string): Promise<number> {
  return (await page.evaluate(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    if (!el) throw new Error('no ' + ${JSON.stringify(selector)});
    const [r, g, b] = getComputedStyle(el).backgroundColor.match(/[\\d.]+/g).map(Number).map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  })()`)) as number;
}

/** axe-core's colour-contrast violations of the page: the elements (selectors) whose text is hard to read, with why. */
async function contrastViolations(page: Page): Promise<Map<string, string>> {
  // Colours are read once the theme's transitions have ended (antd fades them in); mid-fade
  // a colour is neither theme's.
  await waitUntil(page, `document.getAnimations().every((a) => a.playState !== 'running')`);
  // page.evaluate runs outside the page's script policy; a <script> tag would be refused.
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE);
  const nodes = (await page.evaluate(
    `axe.run(document, { runOnly: ['color-contrast'] }).then((r) => r.violations.flatMap((v) => v.nodes.map((n) => [n.target.join(' '), n.failureSummary])))`,
  )) as Array<[string, string]>;
  return new Map(nodes);
}

/**
 * The page's contrast failures in dark mode that it does not have in light mode: none, or dark
 * mode made some text harder to read. (The light theme's own failures, antd's palette, are the
 * accessibility work's business and are compared against, not asserted away.)
 */
async function darkOnlyContrastFailures(page: Page): Promise<string[]> {
  await page.emulateMedia({ colorScheme: 'dark' });
  await waitUntil(page, `document.documentElement.dataset.theme === 'dark'`);
  const dark = await contrastViolations(page);
  await page.emulateMedia({ colorScheme: 'light' });
  await waitUntil(page, `document.documentElement.dataset.theme === 'light'`);
  const light = await contrastViolations(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  await waitUntil(page, `document.documentElement.dataset.theme === 'dark'`);
  return [...dark].filter(([target]) => !light.has(target)).map(([target, why]) => `${target}: ${why}`);
}

/** The contrast ratio of an element's text colour on the page's background (both opaque enough to compare). */
async function textContrast(page: Page, selector: string): Promise<number> {
  return (await page.evaluate(`(() => {
    const lum = (css) => {
      const [r, g, b] = css.match(/[\\d.]+/g).map(Number).map((c) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const el = document.querySelector(${JSON.stringify(selector)});
    let bg = el;
    while (bg && /rgba\\(.*, 0\\)|transparent/.test(getComputedStyle(bg).backgroundColor)) bg = bg.parentElement;
    const a = lum(getComputedStyle(el).color);
    const b = lum(getComputedStyle(bg ?? document.body).backgroundColor);
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  })()`)) as number;
}

const theme = (page: Page) => page.evaluate('document.documentElement.dataset.theme');

/** Chooses `label` in the header's theme switch. */
async function chooseTheme(page: Page, label: string): Promise<void> {
  await page.locator('.fw-theme-switch').click();
  await page.locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option', { hasText: new RegExp(`^${label}$`) }).click();
}

describeBrowser('admin UI: dark mode', (browser) => {
  let ui: UiDemo;
  let token: string;
  before(async function () {
    this.timeout(120_000);
    ui = await startDemo();
    const book = ui.demo.registry.get('Book')!;
    await ui.demo.store.knex(book.table).insert(Array.from({ length: 8 }, (_, i) => ({ [book.fields.title!.column]: `Dark book ${i + 1}` })));
    token = await apiToken(ui.url);
  });
  after(async () => {
    await ui?.close();
  });

  const open = async (b: Browser, colorScheme: 'dark' | 'light') => {
    const context = await b.newContext({ viewport: { width: 1366, height: 800 }, colorScheme });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    return { context, page, errors };
  };

  it('follows a dark system: the sign-in page and a model page are dark and readable', async () => {
    const { context, page, errors } = await open(browser(), 'dark');
    try {
      await page.goto(`${ui.url}/login`);
      await page.locator('#login_account').waitFor();
      expect(await theme(page)).to.equal('dark');
      expect(await backgroundLuminance(page, 'body')).to.be.lessThan(0.05);
      expect(await backgroundLuminance(page, '.fw-login-card')).to.be.lessThan(0.05);
      expect(await backgroundLuminance(page, '#login button[type=submit]')).to.be.greaterThan(0.1); // the primary button stays blue
      expect(await textContrast(page, '.fw-login-title')).to.be.greaterThan(7);
      expect([...(await contrastViolations(page))]).to.deep.equal([]);
      await shot(page, join(ui.shots, 'dark-sign-in-1366.png'));

      await openSignedIn(page, ui.url, '/model/Book', token);
      await page.locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
      expect(await theme(page)).to.equal('dark');
      for (const selector of ['body', '.fw-header', '.ant-table', '.ant-table-tbody td']) {
        expect(await backgroundLuminance(page, selector), selector).to.be.lessThan(0.05);
      }
      expect(await textContrast(page, '.ant-table-tbody td.fw-col-title')).to.be.greaterThan(7);
      expect(await darkOnlyContrastFailures(page)).to.deep.equal([]);
      await shot(page, join(ui.shots, 'dark-model-1366.png'));
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('the header switch overrides the system, survives a reload and goes back to following the system', async () => {
    const { context, page, errors } = await open(browser(), 'dark');
    try {
      await openSignedIn(page, ui.url, '/model/Book', token);
      await page.locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
      await chooseTheme(page, 'Light');
      await waitUntil(page, `document.documentElement.dataset.theme === 'light'`);
      expect(await backgroundLuminance(page, '.ant-table')).to.be.greaterThan(0.9);
      expect(await page.evaluate(`localStorage.getItem('fw-theme')`)).to.equal('light');

      await page.reload();
      await page.locator('.ant-table-tbody tr.ant-table-row').first().waitFor();
      expect(await theme(page)).to.equal('light');
      expect(await backgroundLuminance(page, 'body')).to.be.greaterThan(0.8);
      await shot(page, join(ui.shots, 'light-model-1366.png'));

      // The sign-in page keeps the choice too.
      await page.goto(`${ui.url}/login`);
      await page.locator('#login_account').waitFor();
      expect(await theme(page)).to.equal('light');
      await shot(page, join(ui.shots, 'light-sign-in-1366.png'));

      await openSignedIn(page, ui.url, '/model/Book', token);
      await chooseTheme(page, 'System');
      await waitUntil(page, `document.documentElement.dataset.theme === 'dark'`);
      expect(await page.evaluate(`localStorage.getItem('fw-theme')`)).to.equal(null);
      // Following the system again: a change of the system's scheme applies at once.
      await page.emulateMedia({ colorScheme: 'light' });
      await waitUntil(page, `document.documentElement.dataset.theme === 'light'`);
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });

  it('a light system can choose dark, in Chinese too', async () => {
    const { context, page, errors } = await open(browser(), 'light');
    try {
      await page.goto(`${ui.url}/login`);
      await page.evaluate(`localStorage.setItem('fw-locale', 'zh-CN')`);
      await openSignedIn(page, ui.url, '/model/Book', token);
      expect(await theme(page)).to.equal('light');
      await chooseTheme(page, '深色');
      await waitUntil(page, `document.documentElement.dataset.theme === 'dark'`);
      expect(await backgroundLuminance(page, '.fw-header')).to.be.lessThan(0.05);
      expect(await page.locator('.fw-theme-switch').innerText()).to.contain('深色');
      await page.setViewportSize({ width: 390, height: 800 });
      await shot(page, join(ui.shots, 'dark-model-zh-390.png'));
      expect(errors).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
