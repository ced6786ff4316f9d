import { expect } from 'chai';
import { encodePassword } from './client.js';
import { setup, type LoginFixture } from './test-setup.js';

// Red-team probes of GET /my/activity (issue 20 §6): only the caller's rows, no secrets, bad limits.
async function signIn(f: LoginFixture, account: string, pwd: string, status = 200): Promise<string | undefined> {
  const res = await f.agent
    .post('/fw-api/login')
    .set('User-Agent', `ua/${account}`)
    .send({ account, pwd: encodePassword(pwd) });
  expect(res.status).to.equal(status);
  return res.body.token as string | undefined;
}

describe('GET /fw-api/my/activity red team', () => {
  let f: LoginFixture;
  beforeEach(async () => {
    f = await setup();
  });
  afterEach(() => f.cleanup());

  it('refuses a token whose user must change the password (403), and forged or absent tokens (401)', async () => {
    await f.store.users.create({ account: 'must', password: 'must-pass-1', mustChangePassword: true });
    const must = (await signIn(f, 'must', 'must-pass-1'))!;
    const res = await f.agent.get('/fw-api/my/activity').set('token', must);
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('PASSWORD_CHANGE_REQUIRED');
    for (const token of ['', 'AAAAAAAAAAAAAAAA', `${must}x`, must.toLowerCase() === must ? must.toUpperCase() : must.toLowerCase()]) {
      expect((await f.agent.get('/fw-api/my/activity').set('token', token)).status, token).to.equal(401);
    }
    // `_token` is for downloads only.
    expect((await f.agent.get(`/fw-api/my/activity?_token=${must}`)).status).to.equal(401);
  });

  it('never answers another user’s rows, whatever the query names, and no token hash or secret', async () => {
    const rootId = (await f.store.users.findByAccount('root'))!.id;
    await signIn(f, 'root', 'wrong-root', 401);
    const rootToken = (await signIn(f, 'root', 'root-pass'))!;
    for (let i = 0; i < 5; i += 1)
      await f.store.operateLogs.insert({
        userId: rootId,
        account: 'root',
        model: 'Secret',
        action: 'update',
        targetId: 100 + i,
        beforeData: { pin: '1234' },
        request: { pin: '9999' },
        status: 'success',
      });
    await f.store.operateLogs.insert({
      userId: f.alice.id,
      account: 'alice',
      model: 'Book',
      action: 'update',
      targetId: 1,
      beforeData: { pin: '1234' },
      request: { pin: '9999' },
      status: 'success',
    });
    const alice = (await signIn(f, 'alice', 'alice-pass'))!;
    for (const q of [
      '',
      `?user=${rootId}`,
      `?userId=${rootId}`,
      `?user_id=${rootId}`,
      `?account=root`,
      `?limit=50&user=${rootId}`,
      '?__proto__[userId]=1',
      `?constructor[prototype][userId]=${rootId}`,
    ]) {
      const res = await f.agent.get(`/fw-api/my/activity${q}`).set('token', alice);
      expect(res.status, q).to.equal(200);
      const text = JSON.stringify(res.body);
      expect(text, q).not.to.contain('Secret');
      expect(text, q).not.to.contain('ua/root');
      expect(text, q).not.to.match(/1234|9999|tokenHash|token_hash|hash|pwd|beforeData|request|account/i);
      expect(text, q).not.to.contain(alice);
      expect(text, q).not.to.contain(rootToken);
      expect(res.body.signIns.length, q).to.equal(1);
      expect(
        res.body.edits.map((e: { targetId: string }) => e.targetId),
        q,
      ).to.deep.equal(['1']);
      for (const s of res.body.signIns) expect(s).to.have.all.keys('id', 'time', 'success', 'reason', 'ip', 'userAgent', 'method');
    }
  });

  it('refuses every malformed limit with 400, never a 500, and caps at 50', async () => {
    const alice = (await signIn(f, 'alice', 'alice-pass'))!;
    for (const bad of ['', '00', '05', '+5', '5e0', '0x5', ' 5', '5%20', '%EF%BC%95', '51', '100', '9'.repeat(400), 'NaN', 'Infinity', '-0', '5&limit=6', "5'%20OR%201=1"]) {
      const res = await f.agent.get(`/fw-api/my/activity?limit=${bad}`).set('token', alice);
      expect(res.status, bad).to.equal(400);
      expect(res.body.error.code, bad).to.equal('BAD_REQUEST');
    }
    for (const good of ['1', '50']) expect((await f.agent.get(`/fw-api/my/activity?limit=${good}`).set('token', alice)).status, good).to.equal(200);
  });
});
