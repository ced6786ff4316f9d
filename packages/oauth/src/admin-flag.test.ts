// Issue 22 §4: the sign-on builds its FwUser with the one toFwUser of @fw/core, so an
// administrator's row is an administrator on every dialect, and nobody else is.
import { expect } from 'chai';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { Browser, startHost, startProvider, type Host } from './test-setup.js';

describeEachSql('fwOAuth: the administrator flag of a signed-on user', (db) => {
  let provider: Awaited<ReturnType<typeof startProvider>>;
  let store: FwStore;
  let host: Host;

  before(async () => {
    provider = await startProvider();
    store = createStore(db().url);
    host = await startHost(provider.issuer, { store });
    await store.users.create({ account: 'root', name: 'Root', password: 'root-password', isAdmin: true, mustChangePassword: false });
  });
  after(async () => {
    await host?.close();
    await store?.destroy();
    await provider?.stop();
  });

  for (const [account, admin] of [
    ['root', true],
    ['alice', false],
  ] as const) {
    it(`signs ${account} on as ${admin ? 'an administrator' : 'a non-administrator'}: the hook's user, the login log and userinfo`, async () => {
      provider.profile.sub = account;
      const hops = await new Browser().walk(`${host.url}/connect/mock`, (location) => location.startsWith(`${host.url}/auth.html`));
      const token = new URL(hops.at(-1)!.location!, host.url).searchParams.get('token')!;
      const signedOn = host.loginSuccess.find((entry) => entry.token === token);
      expect(signedOn?.user).to.include({ account, isAdmin: admin });
      const [log] = await store.loginLogs.list({ success: true, limit: 1 });
      expect(log).to.include({ account, admin });
      const me = await fetch(`${host.url}/fw-api/userinfo`, { headers: { token } });
      expect(((await me.json()) as { isAdmin: boolean }).isAdmin).to.equal(admin);
    });
  }
});
