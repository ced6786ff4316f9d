import { expect } from 'chai';
import { isFwError } from '@fw/core';
import { LOGIN_ERROR_CODES } from '../error-codes.js';
import { flowRequestFor, flowSetup, rejection, sent, type FlowFixture } from './test-setup.js';

const NEW = 'a-new-passphrase-2026';

describe('loginFlows(options).changePassword(input, request): outcomes without HTTP', () => {
  let f: FlowFixture;
  afterEach(() => f?.cleanup());

  /** Alice signed in twice: the session that changes the password, and another one. */
  async function sessions(fixture: FlowFixture) {
    const signIn = async () => {
      const outcome = await fixture.flows.passwordSignIn({ account: 'alice', pwd: sent('alice-pass') }, fixture.request);
      if (!outcome.ok) throw new Error(`refused: ${outcome.reason}`);
      return outcome;
    };
    return { current: await signIn(), other: await signIn() };
  }

  it('changes the password, ends the other sessions and keeps this one', async () => {
    f = await flowSetup();
    const { current, other } = await sessions(f);
    const input = { user: current.user, token: current.token, pwd: sent('alice-pass'), newPwd: sent(NEW), newPwd2: sent(NEW) };
    expect(await f.flows.changePassword(input, f.request)).to.deep.equal({ ok: true });
    expect(await f.tokens.resolve(current.token)).to.not.equal(undefined);
    expect(await f.tokens.resolve(other.token)).to.equal(undefined);
    expect((await f.flows.passwordSignIn({ account: 'alice', pwd: sent(NEW) }, f.request)).ok).to.equal(true);
  });

  it('answers each refusal with its code, reason and details', async () => {
    f = await flowSetup();
    const { current } = await sessions(f);
    const change = (pwd: string, newPwd: string, newPwd2 = newPwd) =>
      f.flows.changePassword({ user: current.user, token: current.token, pwd: sent(pwd), newPwd: sent(newPwd), newPwd2: sent(newPwd2) }, f.request);
    expect(await change('wrong', NEW)).to.deep.equal({
      ok: false,
      code: 'WRONG_PASSWORD',
      reason: LOGIN_ERROR_CODES.WRONG_PASSWORD.message,
      details: [{ path: 'pwd', type: 'wrongPassword', message: 'The current password is wrong' }],
    });
    expect(await change('alice-pass', NEW, `${NEW}!`)).to.deep.include({ ok: false, code: 'PASSWORDS_DIFFER' });
    const policy = await change('alice-pass', 'short');
    expect(policy).to.deep.include({ ok: false, code: 'PASSWORD_POLICY' });
    expect(policy.ok === false && policy.code === 'PASSWORD_POLICY' && policy.details?.[0]).to.include({ path: 'newPwd', type: 'minLength' });
  });

  it("answers the hook's refusal as PASSWORD_REFUSED with its text, and a directory user as NO_LOCAL_PASSWORD", async () => {
    f = await flowSetup({ login: { proxy: { beforeChangePwd: () => Promise.reject(new Error('Used before')) } } });
    const { current } = await sessions(f);
    const input = { user: current.user, token: current.token, pwd: sent('alice-pass'), newPwd: sent(NEW), newPwd2: sent(NEW) };
    expect(await f.flows.changePassword(input, f.request)).to.deep.equal({
      ok: false,
      code: 'PASSWORD_REFUSED',
      reason: 'Used before',
      details: [{ path: 'newPwd', type: 'beforeChangePwd', message: 'Used before' }],
    });
    const directory = await f.store.users.create({ account: 'dora', name: 'Dora' });
    const dora = { id: directory.id, account: 'dora', name: 'Dora', isAdmin: false };
    expect(await f.flows.changePassword({ ...input, user: dora }, flowRequestFor('10.0.0.9'))).to.deep.equal({
      ok: false,
      code: 'NO_LOCAL_PASSWORD',
      reason: LOGIN_ERROR_CODES.NO_LOCAL_PASSWORD.message,
    });
  });

  it('throws 400 for a password holding a NUL, before counting anything', async () => {
    f = await flowSetup();
    const { current } = await sessions(f);
    const error = await rejection(
      f.flows.changePassword({ user: current.user, token: current.token, pwd: sent('alice-pass'), newPwd: sent('a\u0000b'), newPwd2: sent('a\u0000b') }, f.request),
    );
    expect(isFwError(error) && error.code).to.equal('BAD_REQUEST');
    expect(isFwError(error) && error.details?.map((d) => d.path)).to.deep.equal(['newPwd', 'newPwd2']);
  });

  it('is the forced first change too: resetPwd until the user changed the password an administrator set', async () => {
    f = await flowSetup();
    await f.store.users.create({ account: 'bob', name: 'Bob', password: 'set-by-admin-2026' });
    const first = await f.flows.passwordSignIn({ account: 'bob', pwd: sent('set-by-admin-2026') }, f.request);
    if (!first.ok) throw new Error(`refused: ${first.reason}`);
    expect(first.resetPwd).to.equal(true);
    const input = { user: first.user, token: first.token, pwd: sent('set-by-admin-2026'), newPwd: sent(NEW), newPwd2: sent(NEW) };
    expect(await f.flows.changePassword(input, f.request)).to.deep.equal({ ok: true });
    const again = await f.flows.passwordSignIn({ account: 'bob', pwd: sent(NEW) }, f.request);
    expect(again.ok && again.resetPwd).to.equal(false);
  });
});
