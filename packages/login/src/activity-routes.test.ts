import { expect } from 'chai';
import { encodePassword } from './client.js';
import { setup, type LoginFixture } from './test-setup.js';

async function signIn(f: LoginFixture, account: string, pwd: string, status = 200): Promise<string | undefined> {
  const res = await f.agent
    .post('/fw-api/login')
    .set('User-Agent', `test/${account}`)
    .send({ account, pwd: encodePassword(pwd) });
  expect(res.status).to.equal(status);
  return res.body.token as string | undefined;
}

describe('GET /fw-api/my/activity', () => {
  let f: LoginFixture;
  beforeEach(async () => {
    f = await setup();
  });
  afterEach(() => f.cleanup());

  it('answers the caller’s own sign-ins, failed ones included, and edits, newest first', async () => {
    await signIn(f, 'alice', 'wrong-password', 401);
    const alice = (await signIn(f, 'alice', 'alice-pass'))!;
    const root = (await signIn(f, 'root', 'root-pass'))!;
    const rootId = (await f.store.users.findByAccount('root'))!.id;
    await f.store.operateLogs.insert({
      userId: f.alice.id,
      account: 'alice',
      model: 'Book',
      action: 'update',
      source: 'cell',
      targetId: 3,
      beforeData: { price: 1 },
      request: { id: 3, field: 'price', value: 2 },
      status: 'success',
      createdAt: new Date(Date.now() - 2000),
    });
    await f.store.operateLogs.insert({ userId: f.alice.id, account: 'alice', model: 'Book', action: 'delete', status: 'failure', error: 'no' });
    await f.store.operateLogs.insert({
      userId: f.alice.id,
      account: 'alice',
      model: 'Author',
      action: 'add',
      targetId: 9,
      status: 'success',
      createdAt: new Date(Date.now() - 1000),
    });
    await f.store.operateLogs.insert({ userId: rootId, account: 'root', model: 'Book', action: 'add', targetId: 4, status: 'success' });

    const res = await f.agent.get('/fw-api/my/activity').set('token', alice).expect(200);
    expect(res.headers['cache-control']).to.equal('no-store');
    expect(res.body.signIns.map((s: { success: boolean; reason: string | null }) => [s.success, s.reason])).to.deep.equal([
      [true, null],
      [false, 'bad-credentials'],
    ]);
    expect(res.body.signIns[0]).to.include({ method: 'password', userAgent: 'test/alice' });
    expect(res.body.signIns[0]).to.not.have.property('tokenHash');
    // Failed operations and other users' rows are not there; no row data either.
    expect(res.body.edits.map((e: { model: string; action: string; targetId: string }) => [e.model, e.action, e.targetId])).to.deep.equal([
      ['Author', 'add', '9'],
      ['Book', 'update', '3'],
    ]);
    expect(res.body.edits[1]).to.have.all.keys('id', 'time', 'model', 'action', 'source', 'targetId');

    const mine = await f.agent.get('/fw-api/my/activity').set('token', root).expect(200);
    expect(mine.body.edits.map((e: { targetId: string }) => e.targetId)).to.deep.equal(['4']);
    expect(mine.body.signIns).to.have.length(1);
  });

  it('takes no other user: an administrator sees only their own rows here', async () => {
    await signIn(f, 'alice', 'wrong-password', 401);
    const root = (await signIn(f, 'root', 'root-pass'))!;
    const res = await f.agent.get(`/fw-api/my/activity?user=${f.alice.id}`).set('token', root).expect(200);
    expect(res.body.signIns.every((s: { success: boolean }) => s.success)).to.equal(true);
    expect(res.body.signIns).to.have.length(1);
  });

  it('bounds the lists by limit and refuses a bad one with 400', async () => {
    const alice = (await signIn(f, 'alice', 'alice-pass'))!;
    await signIn(f, 'alice', 'alice-pass');
    await signIn(f, 'alice', 'alice-pass');
    const res = await f.agent.get('/fw-api/my/activity?limit=2').set('token', alice).expect(200);
    expect(res.body.signIns).to.have.length(2);
    for (const bad of ['0', '51', 'x', '1.5', '-1']) {
      const refused = await f.agent.get(`/fw-api/my/activity?limit=${bad}`).set('token', alice).expect(400);
      expect(refused.body.error).to.include({ code: 'BAD_REQUEST' });
      expect(refused.body.error.details[0]).to.include({ path: 'limit' });
    }
  });

  it('is 401 without a token', async () => {
    const res = await f.agent.get('/fw-api/my/activity').expect(401);
    expect(res.body.error.code).to.be.a('string');
  });
});
