import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser; `.ci/run` installs it when missing. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Launches Debian's headless Chromium through `playwright-core` (no downloaded browser). Flags keep
 * it quiet and quick in a container: no sandbox (root in CI), no GPU, no background traffic.
 * The caller closes it.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Declares `body` inside `describe('<title> in headless Chromium')` with one browser for the whole
 * block (launched in `before`, closed in `after`); `body` gets a getter for it. Give each test its
 * own `browser().newContext()` so storage does not leak between tests. When `/usr/bin/chromium`
 * is missing, declares one pending test saying so instead.
 */
export function describeBrowser(title: string, body: (browser: () => Browser) => void): void {
  describe(`${title} in headless Chromium`, function () {
    // A browser test walks many steps, each waiting on a page; on two cores shared by parallel
    // test files (several of them driving two or three browsers at once) each step may take
    // seconds. A test's own `this.timeout(...)` still wins.
    this.timeout(Math.max(this.timeout(), 120_000));
    if (!existsSync(CHROMIUM_PATH)) {
      it(`skipped: ${CHROMIUM_PATH} is not installed (.ci/run installs Debian's chromium)`, function () {
        this.skip();
      });
      return;
    }
    let browser: Browser | undefined;
    before(async function () {
      browser = await launchBrowser();
    });
    after(async function () {
      await browser?.close();
    });
    body(() => {
      if (!browser) throw new Error('the browser is not running (before hook failed?)');
      return browser;
    });
  });
}
