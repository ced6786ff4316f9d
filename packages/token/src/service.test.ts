import { expect } from 'chai';
import { thrown } from '@fw/test-utils';
import { FwDefinitionError, isFwError, loadConfig, type FwConfig } from '@fw/core';
import { FwTokenService, MemoryTokenStore, createTokenService, hashToken, type TokenRecord, type TokenStore } from '@fw/token';

const NOW = Date.UTC(2031, 0, 1);
const MINUTE = 60_000;

/** A memory store that records every call and its arguments. */
function setup(inner: TokenStore = new MemoryTokenStore()) {
  const calls: Array<{ method: string; args: unknown[] }> = [];
  const log =
    <A extends unknown[], R>(method: string, fn: (...args: A) => Promise<R>) =>
    (...args: A): Promise<R> => {
      calls.push({ method, args });
      return fn(...args);
    };
  const store: TokenStore = {
    save: log('save', (r: TokenRecord, now: number) => inner.save(r, now)),
    find: log('find', (h: string, now: number) => inner.find(h, now)),
    delete: log('delete', (h: string) => inner.delete(h)),
    deleteByUser: log('deleteByUser', (u: number) => inner.deleteByUser(u)),
    extend: log('extend', (h: string, e: number, now: number) => inner.extend(h, e, now)),
    purgeExpired: log('purgeExpired', (now: number) => inner.purgeExpired(now)),
  };
  let t = NOW;
  return { store, calls, clock: { now: () => t, advance: (ms: number) => void (t += ms) } };
}

function definitionError(fn: () => unknown): FwDefinitionError {
  return thrown(fn, FwDefinitionError);
}

describe('createTokenService(options)', () => {
  it('returns an FwTokenService with the documented defaults', () => {
    const service = createTokenService({ store: new MemoryTokenStore() });
    expect(service).to.be.instanceOf(FwTokenService);
    expect(service.expireMinutes).to.equal(120);
    expect(service.sliding).to.equal(false);
    expect(service.renewAfter).to.equal(0.5);
  });

  it('takes the lifetime and sliding switch from the configuration', async () => {
    const config = loadConfig({ values: { 'fw.upms.expireTimeByLogin': 45, 'fw.upms.slidingExpiration': true }, env: false });
    const { store, clock } = setup();
    const service = createTokenService({ store, config, now: clock.now });
    expect(service.expireMinutes).to.equal(45);
    expect(service.sliding).to.equal(true);
    expect((await service.loginToken({ id: 1, account: 'a' })).expiresAt.getTime()).to.equal(NOW + 45 * MINUTE);
  });

  it('lets explicit options win over the configuration', () => {
    const config = loadConfig({ values: { 'fw.upms.expireTimeByLogin': 45, 'fw.upms.slidingExpiration': true }, env: false });
    const service = createTokenService({ store: new MemoryTokenStore(), config, expireMinutes: 5, sliding: false });
    expect(service.expireMinutes).to.equal(5);
    expect(service.sliding).to.equal(false);
  });

  it('rejects bad options when called, naming the option', () => {
    const store = new MemoryTokenStore();
    for (const expireMinutes of [0, -5, 1.5, Number.NaN, 527_041, '60']) {
      expect(definitionError(() => createTokenService({ store, expireMinutes: expireMinutes as number })).key).to.equal('FwTokenService.expireMinutes');
    }
    const badConfig = { ...loadConfig({ env: false }), 'fw.upms.expireTimeByLogin': 0 } as FwConfig;
    expect(definitionError(() => createTokenService({ store, config: badConfig })).key).to.equal('fw.upms.expireTimeByLogin');
    expect(definitionError(() => createTokenService({ store, sliding: 'yes' as unknown as boolean })).key).to.equal('FwTokenService.sliding');
    for (const renewAfter of [1, -0.1, Number.NaN, '0.5']) {
      expect(definitionError(() => createTokenService({ store, renewAfter: renewAfter as number })).key).to.equal('FwTokenService.renewAfter');
    }
    expect(definitionError(() => createTokenService({ store, now: 5 as unknown as () => number })).key).to.equal('FwTokenService.now');
    expect(definitionError(() => createTokenService({ store: {} as TokenStore })).key).to.equal('FwTokenService.store');
    expect(definitionError(() => createTokenService(null as unknown as { store: TokenStore })).key).to.equal('FwTokenService');
  });

  it('leaves the caller’s options object as it was', () => {
    const store = new MemoryTokenStore();
    const options = Object.freeze({ store, sliding: true });
    const service = createTokenService(options);
    expect(service.sliding).to.equal(true);
    expect(Object.keys(options)).to.deep.equal(['store', 'sliding']);
  });
});

describe('FwTokenService', () => {
  describe('loginToken(user, token?)', () => {
    it('hands the store only the hash, never the token', async () => {
      const { store, calls, clock } = setup();
      const service = createTokenService({ store, now: clock.now, sliding: true });
      const { token } = await service.loginToken({ id: 1, account: 'a' });
      clock.advance(61 * MINUTE);
      await service.resolve(token);
      await service.revoke(token);
      await service.revokeUser(1);
      expect(calls.map((c) => c.method)).to.deep.equal(['save', 'find', 'extend', 'delete', 'deleteByUser']);
      const seen = JSON.stringify(calls);
      expect(seen).to.include(hashToken(token));
      expect(seen).to.not.include(token);
    });

    it('refuses a user without a whole-number id, before any store call', async () => {
      const { store, calls } = setup();
      const service = createTokenService({ store });
      for (const user of [null, {}, { id: '1' }, { id: 1.5 }, { id: 2 ** 31 }]) {
        let caught: unknown;
        try {
          await service.loginToken(user as unknown as { id: number; account: string });
        } catch (error) {
          caught = error;
        }
        expect(caught, JSON.stringify(user)).to.be.instanceOf(TypeError);
      }
      expect(calls).to.deep.equal([]);
    });

    it('draws a new token when a generated one collides, and gives up after three tries', async () => {
      const inner = new MemoryTokenStore();
      let refusals = 1;
      const flaky: TokenStore = Object.assign(Object.create(inner) as MemoryTokenStore, {
        save: async (record: TokenRecord, now: number) => (refusals-- > 0 ? false : inner.save(record, now)),
      });
      const service = createTokenService({ store: flaky });
      const { token } = await service.loginToken({ id: 1, account: 'a' });
      expect((await service.resolve(token))?.userId).to.equal(1);

      refusals = 3;
      let caught: unknown;
      try {
        await service.loginToken({ id: 1, account: 'a' });
      } catch (error) {
        caught = error;
      }
      expect(isFwError(caught) && caught.code === 'CONFLICT' && caught.status === 409).to.equal(true);
      expect(refusals).to.equal(0);
    });
  });

  describe('resolve(token)', () => {
    it('renews on every call with renewAfter 0', async () => {
      const { store, calls, clock } = setup();
      const service = createTokenService({ store, now: clock.now, sliding: true, renewAfter: 0, expireMinutes: 10 });
      const { token } = await service.loginToken({ id: 1, account: 'a' });
      clock.advance(1000);
      expect((await service.resolve(token))?.expiresAt.getTime()).to.equal(NOW + 1000 + 10 * MINUTE);
      clock.advance(1000);
      await service.resolve(token);
      expect(calls.filter((c) => c.method === 'extend')).to.have.length(2);
    });

    it('treats a token revoked between the read and the renewal as unknown', async () => {
      const { store, clock } = setup();
      const racing: TokenStore = { ...store, extend: async () => false };
      const service = createTokenService({ store: racing, now: clock.now, sliding: true, expireMinutes: 10 });
      const { token } = await service.loginToken({ id: 1, account: 'a' });
      clock.advance(6 * MINUTE);
      expect(await service.resolve(token)).to.equal(undefined);
    });

    it('truncates a sub-millisecond clock and refuses a broken one', async () => {
      const service = createTokenService({ store: new MemoryTokenStore(), now: () => NOW + 0.75, expireMinutes: 1 });
      expect((await service.loginToken({ id: 1, account: 'a' })).expiresAt.getTime()).to.equal(NOW + MINUTE);
      const broken = createTokenService({ store: new MemoryTokenStore(), now: () => Number.NaN });
      let caught: unknown;
      try {
        await broken.loginToken({ id: 1, account: 'a' });
      } catch (error) {
        caught = error;
      }
      expect(caught).to.be.instanceOf(TypeError);
    });
  });

  describe('revokeHash(hash)', () => {
    it('ends the token whose hash it is, and passes nothing malformed to the store', async () => {
      const { store, calls, clock } = setup();
      const service = createTokenService({ store, now: clock.now });
      const { token } = await service.loginToken({ id: 1, account: 'a' });
      expect(await service.revokeHash(token)).to.equal(false);
      expect(await service.revokeHash(hashToken(token).toUpperCase())).to.equal(false);
      expect(await service.revokeHash(undefined)).to.equal(false);
      expect(calls.map((c) => c.method)).to.deep.equal(['save']);
      expect(await service.revokeHash(hashToken(token))).to.equal(true);
      expect(await service.resolve(token)).to.equal(undefined);
    });
  });

  describe('revokeUser(userId) and purgeExpired()', () => {
    it('checks the id and passes the service clock to the store', async () => {
      const { store, calls, clock } = setup();
      const service = createTokenService({ store, now: clock.now, expireMinutes: 1 });
      let caught: unknown;
      try {
        await service.revokeUser(Number.NaN);
      } catch (error) {
        caught = error;
      }
      expect(caught).to.be.instanceOf(TypeError);
      await service.loginToken({ id: 1, account: 'a' });
      clock.advance(MINUTE);
      expect(await service.purgeExpired()).to.equal(1);
      expect(calls.at(-1)).to.deep.equal({ method: 'purgeExpired', args: [NOW + MINUTE] });
    });
  });
});
