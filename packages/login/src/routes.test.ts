import { expect } from 'chai';
import { encodePassword } from './client.js';
import { setup, type LoginFixture } from './test-setup.js';

const login = (f: LoginFixture, account: string, password: string) => f.agent.post('/fw-api/login').send({ account, pwd: encodePassword(password) });

async function tokenOf(f: LoginFixture, account = 'alice', password = 'alice-pass'): Promise<string> {
  const res = await login(f, account, password).expect(200);
  return res.body.token as string;
}

async function nothingWritten(f: LoginFixture): Promise<void> {
  expect(await f.store.loginLogs.list({ limit: 10 })).to.have.length(0);
  // No failure was counted either: a fresh failure does not yet ask for a captcha.
  expect((await login(f, 'alice', 'wrong').expect(401)).body.useVerifyCode).to.equal(false);
}

describe('POST /fw-api/login with bad input', () => {
  let f: LoginFixture;
  beforeEach(async () => {
    f = await setup();
  });
  afterEach(() => f.cleanup());

  const cases: Array<[string, (f: LoginFixture) => Promise<{ status: number; body: { error?: { code: string } } }>, number, string]> = [
    ['a missing pwd', (f) => f.agent.post('/fw-api/login').send({ account: 'alice' }), 400, 'BAD_REQUEST'],
    ['a missing account', (f) => f.agent.post('/fw-api/login').send({ pwd: 'x' }), 400, 'BAD_REQUEST'],
    ['a numeric account', (f) => f.agent.post('/fw-api/login').send({ account: 123, pwd: 'eA==' }), 400, 'BAD_REQUEST'],
    ['an object pwd', (f) => f.agent.post('/fw-api/login').send({ account: 'alice', pwd: { $ne: '' } }), 400, 'BAD_REQUEST'],
    ['an array body', (f) => f.agent.post('/fw-api/login').send([1, 2]), 400, 'BAD_REQUEST'],
    ['broken JSON', (f) => f.agent.post('/fw-api/login').set('Content-Type', 'application/json').send('{"account":'), 400, 'INVALID_JSON'],
    ['a non-JSON body', (f) => f.agent.post('/fw-api/login').set('Content-Type', 'text/plain').send('account=alice'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a form body', (f) => f.agent.post('/fw-api/login').type('form').send({ account: 'alice', pwd: 'x' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['an empty body', (f) => f.agent.post('/fw-api/login').set('Content-Type', 'application/json'), 400, 'BAD_REQUEST'],
    [
      'a 10 MB body',
      (f) =>
        f.agent
          .post('/fw-api/login')
          .set('Content-Type', 'application/json')
          .send(`{"account":"alice","pad":"${'x'.repeat(10 * 1024 * 1024)}"}`),
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    ['a 1 MB account', (f) => f.agent.post('/fw-api/login').send({ account: 'a'.repeat(1024 * 1024), pwd: 'eA==' }), 413, 'PAYLOAD_TOO_LARGE'],
    ['a 200-character account', (f) => f.agent.post('/fw-api/login').send({ account: 'a'.repeat(200), pwd: 'eA==' }), 400, 'BAD_REQUEST'],
    ['an object captcha code', (f) => f.agent.post('/fw-api/login').send({ account: 'alice', pwd: 'eA==', verifyCode: {} }), 400, 'BAD_REQUEST'],
  ];
  for (const [what, send, status, code] of cases) {
    it(`answers ${status} ${code} for ${what}, writing nothing`, async () => {
      const res = await send(f);
      expect(res.status).to.equal(status);
      expect(res.body.error?.code).to.equal(code);
      await nothingWritten(f);
    });
  }

  it('lists every malformed field in the details', async () => {
    const res = await f.agent.post('/fw-api/login').send({ account: 5, pwd: false }).expect(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['account', 'pwd']);
  });
});

describe('token authentication (fwAuth and the login routes)', () => {
  let f: LoginFixture;
  beforeEach(async () => {
    f = await setup();
  });
  afterEach(() => f.cleanup());

  it('accepts the token header and Authorization: Bearer', async () => {
    const token = await tokenOf(f);
    expect((await f.agent.get('/private').set('token', token).expect(200)).body.user.account).to.equal('alice');
    expect((await f.agent.get('/private').set('Authorization', `Bearer ${token}`).expect(200)).body.user.account).to.equal('alice');
  });

  it('accepts _token only on GET downloads', async () => {
    const token = await tokenOf(f);
    await f.agent.get(`/private/export?_token=${token}`).expect(200);
    await f.agent.get(`/private/print/3?_token=${token}`).expect(200);
    const other = await f.agent.get(`/private/list?_token=${token}`).expect(401);
    expect(other.body.error.code).to.equal('UNAUTHENTICATED');
    await f.agent.post(`/private/export?_token=${token}`).expect(401);
  });

  it('answers 401 in the error shape without a token, and for a malformed or unknown one', async () => {
    expect((await f.agent.get('/private').expect(401)).body).to.deep.equal({ error: { code: 'UNAUTHENTICATED', message: 'A valid token is required' } });
    expect((await f.agent.get('/private').set('token', 'short').expect(401)).body.error.code).to.equal('TOKEN_EXPIRED');
    expect((await f.agent.get('/private').set('token', 'AAAAAAAAAAAAAAAA').expect(401)).body.error.code).to.equal('TOKEN_EXPIRED');
    expect((await f.agent.get('/fw-api/userinfo').expect(401)).body.error.code).to.equal('UNAUTHENTICATED');
  });

  it('refuses an expired token', async () => {
    const token = await tokenOf(f);
    f.clock.now += 121 * 60_000;
    expect((await f.agent.get('/private').set('token', token).expect(401)).body.error.code).to.equal('TOKEN_EXPIRED');
  });

  it('refuses the token of a user locked after login, on the next request', async () => {
    const token = await tokenOf(f);
    await f.agent.get('/private').set('token', token).expect(200);
    await f.store.users.update(f.alice.id, { status: 'locked' });
    const res = await f.agent.get('/private').set('token', token).expect(401);
    expect(res.body.error).to.deep.equal({ code: 'ACCOUNT_DISABLED', message: 'This account is locked' });
  });

  it('refuses a token whose user was deleted, or all of a user revoked at once', async () => {
    const t1 = await tokenOf(f);
    const t2 = await tokenOf(f);
    await f.tokens.revokeUser(f.alice.id);
    await f.agent.get('/private').set('token', t1).expect(401);
    await f.agent.get('/private').set('token', t2).expect(401);
    const t3 = await tokenOf(f);
    await f.store.users.delete(f.alice.id);
    await f.agent.get('/private').set('token', t3).expect(401);
  });
});

describe('POST /fw-api/change-pwd', () => {
  let f: LoginFixture;
  let calls: unknown[][];
  beforeEach(async () => {
    calls = [];
    f = await setup({
      login: {
        proxy: {
          beforeChangePwd(user, newPwd) {
            calls.push(['before', user.account, newPwd]);
            if (newPwd.includes('forbidden')) throw new Error('no forbidden words, please');
          },
          afterChangePwd(user, originPwd, newPwd) {
            calls.push(['after', user.account, originPwd, newPwd]);
          },
        },
      },
    });
  });
  afterEach(() => f.cleanup());

  const change = (token: string, pwd: string, newPwd: string, newPwd2 = newPwd) =>
    f.agent
      .post('/fw-api/change-pwd')
      .set('token', token)
      .send({ pwd: encodePassword(pwd), newPwd: encodePassword(newPwd), newPwd2: encodePassword(newPwd2) });

  it('checks the old password, calls the hooks, saves, and clears resetPwd', async () => {
    const token = await tokenOf(f);
    await change(token, 'alice-pass', 'brand-new-pass').expect(200);
    expect(calls).to.deep.equal([
      ['before', 'alice', 'brand-new-pass'],
      ['after', 'alice', 'alice-pass', 'brand-new-pass'],
    ]);
    await login(f, 'alice', 'alice-pass').expect(401);
    await login(f, 'alice', 'brand-new-pass').expect(200);
    // A password an administrator set asks for a change, which clears it.
    await f.store.users.create({ account: 'carol', password: 'carol-first-1' });
    expect((await login(f, 'carol', 'carol-first-1').expect(200)).body.resetPwd).to.equal(true);
    await change(await tokenOf(f, 'carol', 'carol-first-1'), 'carol-first-1', 'violet-harbour-42').expect(200);
    expect((await login(f, 'carol', 'violet-harbour-42').expect(200)).body.resetPwd).to.equal(false);
  });

  it('ends every other session of the user at once, keeps the one that changed it, and leaves other users alone', async () => {
    const [stolen, laptop, changer] = [await tokenOf(f), await tokenOf(f), await tokenOf(f)];
    const root = await tokenOf(f, 'root', 'root-pass');
    // A refused change ends nothing.
    await change(changer, 'alice-pass', 'short').expect(422);
    await f.agent.get('/private').set('token', stolen).expect(200);
    await change(changer, 'alice-pass', 'brand-new-pass').expect(200);
    for (const token of [stolen, laptop]) expect((await f.agent.get('/private').set('token', token).expect(401)).body.error.code).to.equal('TOKEN_EXPIRED');
    expect((await f.agent.get('/private').set('token', changer).expect(200)).body.user.account).to.equal('alice');
    await f.agent.get('/private').set('token', root).expect(200);
  });

  it('refuses a wrong old password before any hook, and counts it as a failure', async () => {
    const token = await tokenOf(f);
    const res = await change(token, 'not-it', 'brand-new-pass').expect(422);
    expect(res.body.error.code).to.equal('WRONG_PASSWORD');
    expect(res.body.error.details[0]).to.include({ path: 'pwd' });
    expect(calls).to.deep.equal([]);
    await change(token, 'not-it-either', 'brand-new-pass').expect(422);
    expect((await login(f, 'alice', 'x').expect(401)).body.useVerifyCode).to.equal(true);
  });

  it('refuses differing new passwords and a password the hook refuses, changing nothing', async () => {
    const token = await tokenOf(f);
    expect((await change(token, 'alice-pass', 'brand-new-pass', 'brand-new-pasS').expect(422)).body.error.code).to.equal('PASSWORDS_DIFFER');
    const refused = await change(token, 'alice-pass', 'a-forbidden-word').expect(422);
    expect(refused.body.error).to.include({ code: 'PASSWORD_REFUSED', message: 'no forbidden words, please' });
    // The policy answers before the hook is asked.
    expect((await change(token, 'alice-pass', 'short').expect(422)).body.error.code).to.equal('PASSWORD_POLICY');
    expect(calls.filter(([when, , pwd]) => when === 'before' && pwd === 'short')).to.deep.equal([]);
    await login(f, 'alice', 'alice-pass').expect(200);
  });

  it('needs a token and a well-formed body', async () => {
    await f.agent.post('/fw-api/change-pwd').send({ pwd: 'a', newPwd: 'b', newPwd2: 'b' }).expect(401);
    const token = await tokenOf(f);
    expect((await f.agent.post('/fw-api/change-pwd').set('token', token).send({ pwd: 1 }).expect(400)).body.error.details).to.have.length(3);
    expect((await f.agent.post('/fw-api/change-pwd').set('token', token).send({ pwd: 'bad', newPwd: 'x', newPwd2: 'x' }).expect(400)).body.error.code).to.equal(
      'PASSWORD_ENCODING_INVALID',
    );
    // scrypt would hash "new-pass" and "new-pass\0" alike: a NUL is refused before anything is checked.
    const nul = await change(token, 'alice-pass', 'brand-new-pass\u0000').expect(400);
    expect(nul.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['newPwd', 'newPwd2']);
    await login(f, 'alice', 'alice-pass').expect(200);
  });

  it('takes plain passwords when the transfer encoding is off', async () => {
    const g = await setup({ config: { 'fw-app.pwdTransferEncrypt': false } });
    try {
      const { body } = await g.agent.post('/fw-api/login').send({ account: 'alice', pwd: 'alice-pass' }).expect(200);
      await g.agent.post('/fw-api/change-pwd').set('token', body.token).send({ pwd: 'alice-pass', newPwd: 'plain-new-pass', newPwd2: 'plain-new-pass' }).expect(200);
      await g.agent.post('/fw-api/login').send({ account: 'alice', pwd: 'plain-new-pass' }).expect(200);
    } finally {
      await g.cleanup();
    }
  });
});

describe('GET /fw-api/userinfo and /fw-api/menu', () => {
  it('lists the roles and the menus the user may see; administrators see every menu that is not disabled', async () => {
    const f = await setup();
    try {
      const role = await f.store.roles.create({ code: 'editor', name: 'Editor' });
      const open = await f.store.menus.create({ code: 'Book', name: 'Books', type: 'table', value: 'Book' });
      const hidden = await f.store.menus.create({ code: 'Book@EDIT', name: 'Edit', type: 'function', parentId: open.id, status: 'hidden' });
      const disabled = await f.store.menus.create({ code: 'Salary', name: 'Salaries', type: 'table', value: 'Salary', status: 'disabled' });
      await f.store.menus.create({ code: 'Report', name: 'Reports', type: 'page', value: '/reports' });
      await f.store.roles.setMenus(role.id, [open.id, hidden.id, disabled.id]);
      await f.store.users.setRoles(f.alice.id, [role.id]);

      const token = await tokenOf(f);
      const me = await f.agent.get('/fw-api/userinfo').set('token', token).expect(200);
      expect(me.body.roles).to.deep.equal([{ id: role.id, code: 'editor', name: 'Editor' }]);
      const menus = await f.agent.get('/fw-api/menu').set('token', token).expect(200);
      expect(menus.body.map((m: { code: string }) => m.code).sort()).to.deep.equal(['Book', 'Book@EDIT']);
      expect(menus.body.find((m: { code: string }) => m.code === 'Book')).to.deep.equal({
        id: open.id,
        code: 'Book',
        name: 'Books',
        type: 'table',
        value: 'Book',
        icon: null,
        parentId: null,
        status: 'open',
      });

      const rootToken = await tokenOf(f, 'root', 'root-pass');
      const all = await f.agent.get('/fw-api/menu').set('token', rootToken).expect(200);
      expect(all.body.map((m: { code: string }) => m.code).sort()).to.deep.equal(['Book', 'Book@EDIT', 'Report']);
    } finally {
      await f.cleanup();
    }
  });
});

describe('login timing (the figure is measured in bench/login-timing.bench.ts)', () => {
  it('takes about as long for an unknown account as for a wrong password (generous bound)', async function () {
    this.timeout(60_000);
    const f = await setup({ config: { 'fw-app.verifyCodeCount': 1000, 'fw-app.loginLockCount': 1000, 'fw-app.loginIpLockCount': 100000 } });
    try {
      const time = async (account: string) => {
        const start = performance.now();
        await login(f, account, 'wrong-password').expect(401);
        return performance.now() - start;
      };
      await time('alice');
      const unknown: number[] = [];
      const wrong: number[] = [];
      for (let i = 0; i < 9; i += 1) {
        unknown.push(await time(`nobody-${i}`));
        wrong.push(await time('alice'));
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
      const ratio = median(unknown) / median(wrong);
      // Without the dummy hash an unknown account answers in well under a tenth of the time.
      expect(ratio).to.be.within(0.5, 2);
    } finally {
      await f.cleanup();
    }
  });
});

describe('POST /fw-api/open-api/token', () => {
  it('exchanges a key for a token of its user, refuses malformed bodies, and locks out repeated wrong secrets', async () => {
    const f = await setup({ config: { 'fw-app.loginLockCount': 3 } });
    try {
      const key = await f.store.openApis.create({ name: 'script', userId: f.alice.id });
      await f.agent.post('/fw-api/open-api/token').send({ appId: key.record.appId }).expect(400);
      await f.agent.post('/fw-api/open-api/token').send({ appId: 5, secret: {} }).expect(400);
      const unknown = await f.agent.post('/fw-api/open-api/token').send({ appId: 'no-such-app', secret: 'x' }).expect(401);
      const wrong = await f.agent.post('/fw-api/open-api/token').send({ appId: key.record.appId, secret: 'not-it' }).expect(401);
      expect(wrong.body.error.message).to.equal(unknown.body.error.message);
      const ok = await f.agent.post('/fw-api/open-api/token').send({ appId: key.record.appId, secret: key.secret }).expect(200);
      expect(ok.body.token).to.match(/^[A-Za-z0-9]{16}$/);
      expect((await f.agent.get('/fw-api/userinfo').set('token', ok.body.token).expect(200)).body.account).to.equal('alice');
      for (let i = 0; i < 2; i += 1) await f.agent.post('/fw-api/open-api/token').send({ appId: key.record.appId, secret: 'guess' }).expect(401);
      const locked = await f.agent.post('/fw-api/open-api/token').send({ appId: key.record.appId, secret: 'guess' }).expect(429);
      expect(Number(locked.headers['retry-after'])).to.be.greaterThan(0);
      await f.agent.post('/fw-api/open-api/token').send({ appId: key.record.appId, secret: key.secret }).expect(429);
      await f.store.users.update(f.alice.id, { status: 'locked' });
    } finally {
      await f.cleanup();
    }
  });
});
