import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { OAuth2Server } from 'oauth2-mock-server';
import { createOAuthExample } from './app.js';

describe('examples/oauth', () => {
  it('signs a directory user in through a generic OpenID provider and shows the protected page', async () => {
    const provider = new OAuth2Server();
    await provider.issuer.keys.generate('RS256');
    await provider.start(0, '127.0.0.1');
    provider.service.on('beforeUserinfo', (res: { body: unknown }) => {
      res.body = { sub: 'u-1', preferred_username: 'alice' };
    });
    provider.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
      token.payload.sub = 'u-1';
    });
    const dir = mkdtempSync(join(tmpdir(), 'fw-oauth-example-'));
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const issuer = provider.issuer.url!;
    const file = join(dir, 'providers.json');
    const sample = JSON.parse((await import('node:fs')).readFileSync(new URL('../oauth-providers.example.json', import.meta.url), 'utf8')) as {
      registration: { corp: Record<string, string> };
      provider: { corp: Record<string, string> };
    };
    sample.registration.corp['client-id'] = 'example-client';
    sample.registration.corp['client-secret'] = 'example-secret';
    for (const [key, path] of [
      ['authorization-uri', '/authorize'],
      ['token-uri', '/token'],
      ['user-info-uri', '/userinfo'],
      ['jwk-set-uri', '/jwks'],
    ] as const)
      sample.provider.corp[key] = `${issuer}${path}`;
    sample.provider.corp['issuer-uri'] = issuer;
    writeFileSync(file, JSON.stringify(sample));
    const example = await createOAuthExample({ dbUrl: `sqlite:${join(dir, 'app.db')}`, baseUrl, providersFile: file, cookieKeys: ['example-key'] });
    server.on('request', example.app.callback());
    try {
      await example.store.users.create({ account: 'alice', password: 'unused-password', mustChangePassword: false });
      const jar = new Map<string, string>();
      let url = `${baseUrl}/`;
      const seen: string[] = [];
      for (let i = 0; i < 10; i += 1) {
        const res = await fetch(url, { redirect: 'manual', headers: url.startsWith(baseUrl) && jar.size ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {} });
        if (url.startsWith(baseUrl)) for (const c of res.headers.getSetCookie()) jar.set(c.split('=')[0]!, c.split(';')[0]!.split('=').slice(1).join('='));
        seen.push(new URL(url).pathname);
        const location = res.headers.get('location');
        if (!location) break;
        url = new URL(location, url).href;
        if (url.includes('/auth.html')) break;
      }
      expect(seen).to.deep.equal(['/', '/connect/corp', '/authorize', '/login/oauth2/code/corp', '/oauth-callback']);
      expect(url).to.match(/\/auth\.html\?token=[A-Za-z0-9]{16}$/);
      const page = await fetch(`${baseUrl}/`, { headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      expect(await page.text()).to.contain('Signed in as alice');
      expect((await example.store.loginLogs.list())[0]).to.include({ account: 'alice', method: 'oauth:corp' });
    } finally {
      server.close();
      await example.close();
      await provider.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
