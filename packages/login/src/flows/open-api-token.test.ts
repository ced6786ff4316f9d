import { expect } from 'chai';
import { LOGIN_FAILURE_REASON } from '@fw/core';
import { TOO_MANY } from './flow-request.js';
import { flowSetup, type FlowFixture } from './test-setup.js';

describe('loginFlows(options).exchangeOpenApiKey(input, request): outcomes without HTTP', () => {
  let f: FlowFixture;
  afterEach(() => f?.cleanup());

  async function key(fixture: FlowFixture) {
    const { record, secret } = await fixture.store.openApis.create({ name: 'script', userId: fixture.alice.id });
    return { appId: record.appId, secret };
  }

  it("exchanges a key for a token of the key's user", async () => {
    f = await flowSetup();
    const input = await key(f);
    const outcome = await f.flows.exchangeOpenApiKey(input, f.request);
    if (!outcome.ok) throw new Error(`refused: ${outcome.reason}`);
    expect(outcome.token).to.match(/^[A-Za-z0-9]{16}$/);
    expect(outcome.expire).to.be.instanceOf(Date);
    expect(outcome.user).to.deep.equal({ id: f.alice.id, account: 'alice', name: 'Alice', isAdmin: false });
    const [log] = await f.store.loginLogs.list({ success: true, limit: 1 });
    expect(log).to.include({ account: 'alice', method: `open-api:${input.appId}` });
  });

  it('answers a wrong secret and an unknown app id alike, then the lockout with lockedForMs', async () => {
    f = await flowSetup({ config: { 'fw-app.loginLockCount': 2 } });
    const { appId } = await key(f);
    const wrong = await f.flows.exchangeOpenApiKey({ appId, secret: 'x'.repeat(43) }, f.request);
    const unknown = await f.flows.exchangeOpenApiKey({ appId: 'no-such-app', secret: 'x'.repeat(43) }, f.request);
    const refusal = { ok: false, reason: 'Unknown app id or wrong secret', failure: LOGIN_FAILURE_REASON.BAD_CREDENTIALS };
    expect(wrong).to.deep.equal(refusal);
    expect(unknown).to.deep.equal(refusal);
    const second = await f.flows.exchangeOpenApiKey({ appId, secret: 'y'.repeat(43) }, f.request);
    if (second.ok) throw new Error('a wrong secret was accepted');
    expect(second.reason).to.equal(TOO_MANY);
    expect(second.lockedForMs).to.be.a('number').greaterThan(0);
  });

  it("answers the key user's own refusal (locked) with its reason", async () => {
    f = await flowSetup();
    const input = await key(f);
    await f.store.users.update(f.alice.id, { status: 'locked' });
    expect(await f.flows.exchangeOpenApiKey(input, f.request)).to.deep.equal({ ok: false, reason: 'This account is locked', failure: LOGIN_FAILURE_REASON.LOCKED });
  });
});
