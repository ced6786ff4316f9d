import { expect } from 'chai';
import { LOGIN_FAILURE_REASON, isFwError, type FwUser } from '@fw/core';
import { LoginUnavailableError } from '../login-failure.js';
import { BaseLoginProxy } from '../login-proxy.js';
import { currentLoginRequest } from '../request-context.js';
import { LOGIN_REASONS } from '../user-service.js';
import { TOO_MANY } from './flow-request.js';
import { flowSetup, rejection, sent, type FlowFixture } from './test-setup.js';

describe('loginFlows(options).passwordSignIn(input, request): outcomes without HTTP', () => {
  let f: FlowFixture;
  afterEach(() => f?.cleanup());

  it('signs in: a working token, its expiry, resetPwd and the public user', async () => {
    f = await flowSetup();
    const outcome = await f.flows.passwordSignIn({ account: 'alice', pwd: sent('alice-pass') }, f.request);
    if (!outcome.ok) throw new Error(`refused: ${outcome.reason}`);
    expect(outcome.token).to.match(/^[A-Za-z0-9]{16}$/);
    expect(outcome.expire).to.be.instanceOf(Date);
    expect(outcome.expire.getTime()).to.be.greaterThan(Date.now());
    expect(outcome.resetPwd).to.equal(false);
    expect(outcome.user).to.deep.equal({ id: f.alice.id, account: 'alice', name: 'Alice', isAdmin: false });
    expect((await f.tokens.resolve(outcome.token))?.userId).to.equal(f.alice.id);
    const [log] = await f.store.loginLogs.list({ success: true, limit: 1 });
    expect(log).to.include({ account: 'alice', ip: '10.0.0.7', userAgent: 'flow-test', method: 'password' });
  });

  it('answers a wrong password as data: the reason, the captcha flag and the logged class, nothing reported', async () => {
    f = await flowSetup({ config: { 'fw-app.verifyCodeCount': 1, 'fw-app.loginLockCount': 100 } });
    const outcome = await f.flows.passwordSignIn({ account: 'alice', pwd: sent('wrong') }, f.request);
    expect(outcome).to.deep.equal({ ok: false, reason: LOGIN_REASONS.BAD_CREDENTIALS, captcha: true, failure: LOGIN_FAILURE_REASON.BAD_CREDENTIALS });
    const unknown = await f.flows.passwordSignIn({ account: 'nobody', pwd: sent('wrong') }, { ...f.request, ip: '10.0.0.8' });
    expect(unknown).to.deep.equal({ ok: false, reason: LOGIN_REASONS.BAD_CREDENTIALS, captcha: true, failure: LOGIN_FAILURE_REASON.BAD_CREDENTIALS });
    expect(f.reported).to.deep.equal([]);
  });

  it("answers the stored user's own limits as data (locked), after the password matched", async () => {
    f = await flowSetup();
    await f.store.users.update(f.alice.id, { status: 'locked' });
    const outcome = await f.flows.passwordSignIn({ account: 'alice', pwd: sent('alice-pass') }, f.request);
    expect(outcome).to.deep.include({ ok: false, reason: LOGIN_REASONS.LOCKED, failure: LOGIN_FAILURE_REASON.LOCKED });
  });

  it('asks for the captcha, then locks out with lockedForMs and the lockout reason', async () => {
    f = await flowSetup({ config: { 'fw-app.verifyCodeCount': 1, 'fw-app.loginLockCount': 2 } });
    await f.flows.passwordSignIn({ account: 'alice', pwd: sent('wrong') }, f.request);
    const noCode = await f.flows.passwordSignIn({ account: 'alice', pwd: sent('alice-pass') }, f.request);
    if (noCode.ok) throw new Error('signed in without the captcha');
    expect(noCode.failure).to.equal(LOGIN_FAILURE_REASON.CAPTCHA);
    expect(noCode.reason).to.equal(TOO_MANY);
    expect(noCode.lockedForMs).to.be.a('number').greaterThan(0);
    const locked = await f.flows.passwordSignIn({ account: 'alice', pwd: sent('alice-pass') }, f.request);
    if (locked.ok) throw new Error('signed in while locked out');
    expect(locked).to.include({ reason: TOO_MANY, failure: LOGIN_FAILURE_REASON.THROTTLED });
    expect(locked.lockedForMs).to.be.a('number').greaterThan(0);
  });

  it('keeps the text of a deliberate hook refusal, and runs the hook outside any Koa request', async () => {
    const seen: unknown[] = [];
    f = await flowSetup({
      login: {
        proxy: {
          login: () => {
            seen.push(currentLoginRequest());
            throw new Error('The directory says no');
          },
        },
      },
    });
    const outcome = await f.flows.passwordSignIn({ account: 'alice', pwd: sent('alice-pass') }, f.request);
    expect(outcome).to.deep.include({ ok: false, reason: 'The directory says no', failure: LOGIN_FAILURE_REASON.REFUSED_BY_HOOK });
    expect(seen).to.deep.equal([undefined]);
  });

  it('reports an unexpected hook error and answers the generic reason', async () => {
    const bug = new TypeError('cannot read properties of undefined');
    f = await flowSetup({ login: { proxy: { login: () => Promise.reject(bug) } } });
    const outcome = await f.flows.passwordSignIn({ account: 'alice', pwd: sent('alice-pass') }, f.request);
    expect(outcome).to.deep.include({ ok: false, reason: LOGIN_REASONS.BAD_CREDENTIALS, failure: LOGIN_FAILURE_REASON.HOOK_ERROR });
    expect(f.reported).to.deep.equal([bug]);
  });

  it('throws 503 LOGIN_UNAVAILABLE for a hook whose backend is down, and 400 for a password not transfer-encoded', async () => {
    f = await flowSetup({ login: { proxy: { login: () => Promise.reject(new LoginUnavailableError('The directory cannot be reached', { retryAfter: 30 })) } } });
    const outage = await rejection(f.flows.passwordSignIn({ account: 'alice', pwd: sent('alice-pass') }, f.request));
    expect(isFwError(outage) && outage.code).to.equal('LOGIN_UNAVAILABLE');
    expect(isFwError(outage) && outage.status).to.equal(503);
    const malformed = await rejection(f.flows.passwordSignIn({ account: 'alice', pwd: 'not base64!' }, f.request));
    expect(isFwError(malformed) && malformed.code).to.equal('PASSWORD_ENCODING_INVALID');
  });

  it("makes the sign-in an administrator's when a hook returns isAdmin: true, leaving the stored flag alone", async () => {
    class GroupLogin extends BaseLoginProxy {
      override async login(account: string, pwd: string): Promise<FwUser> {
        return { ...(await super.login(account, pwd)), isAdmin: true };
      }
    }
    f = await flowSetup({ login: { proxy: GroupLogin } });
    const outcome = await f.flows.passwordSignIn({ account: 'alice', pwd: sent('alice-pass') }, f.request);
    if (!outcome.ok) throw new Error(`refused: ${outcome.reason}`);
    expect(outcome.user.isAdmin).to.equal(true);
    expect((await f.tokens.resolve(outcome.token))?.admin).to.equal(true);
    expect((await f.store.users.findById(f.alice.id))?.isAdmin).to.equal(false);
  });
});

describe('BaseLoginProxy#checkLogin and UserService#login: a refused check is data', () => {
  let f: FlowFixture;
  afterEach(() => f?.cleanup());

  it('answers { pass: false, reason } for a wrong password, and the stored row with the user on success', async () => {
    f = await flowSetup();
    const { UserService } = await import('../user-service.js');
    const proxy = new BaseLoginProxy({ users: new UserService(f.store) });
    expect(await proxy.checkLogin('alice', 'wrong', '10.0.0.7')).to.deep.equal({ pass: false, reason: LOGIN_REASONS.BAD_CREDENTIALS });
    const ok = await proxy.checkLogin('alice', 'alice-pass', '10.0.0.7');
    if (!ok.pass) throw new Error(ok.reason);
    expect(ok.user).to.deep.equal({ id: f.alice.id, account: 'alice', name: 'Alice', isAdmin: false });
    expect(ok.stored).to.include({ id: f.alice.id, account: 'alice', status: 'normal', hasPassword: true });
    // The hook form still throws the reason, for hooks that wrap it with super.login.
    const refusal = await rejection(proxy.login('alice', 'wrong'));
    expect(refusal).to.be.instanceOf(Error).with.property('message', LOGIN_REASONS.BAD_CREDENTIALS);
  });
});
