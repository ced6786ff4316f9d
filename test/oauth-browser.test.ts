// The whole sign-on in a real browser: protected page → provider → /oauth-callback →
// /auth.html → admin home, with the token left in localStorage as the admin UI expects it.
import { expect } from 'chai';
import { describeBrowser } from '@fw/test-utils';
import { startHost, startProvider, type Host } from '../packages/oauth/src/test-setup.js';

describeBrowser('OAuth 2.0 sign-on, end to end', (browser) => {
  let provider: Awaited<ReturnType<typeof startProvider>>;
  let host: Host;
  before(async () => {
    provider = await startProvider();
    host = await startHost(provider.issuer);
  });
  after(async () => {
    await host?.close();
    await provider?.stop();
  });

  it('goes from the protected page to the admin home and stores {"token": "<16 chars>"} under _token', async () => {
    const context = await browser().newContext();
    try {
      const page = await context.newPage();
      const visited: string[] = [];
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) visited.push(new URL(frame.url()).pathname);
      });
      await page.goto(`${host.url}/`);
      await page.waitForURL(`${host.url}/`, { timeout: 10_000 });
      await page.waitForSelector('h1', { timeout: 5_000 });
      expect(await page.textContent('h1')).to.equal('admin home');
      // The last navigations: the token page, then the home it sends the browser to.
      expect(visited.slice(-2)).to.deep.equal(['/auth.html', '/']);
      const stored = (await page.evaluate('window.localStorage.getItem("_token")')) as string;
      expect(stored).to.match(/^\{"token":"[A-Za-z0-9]{16}"\}$/);
      const { token } = JSON.parse(stored) as { token: string };
      const me = await fetch(`${host.url}/fw-api/userinfo`, { headers: { token } });
      expect(me.status).to.equal(200);
      expect(await me.json()).to.include({ account: 'alice' });
      expect(host.loginSuccess.map((s) => s.token)).to.include(token);
    } finally {
      await context.close();
    }
  });
});
