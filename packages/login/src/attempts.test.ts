import { expect } from 'chai';
import { describeRedis } from '@fw/test-utils';
import { FwDefinitionError } from '@fw/core';
import { MemoryEphemeralStore, RedisEphemeralStore, type EphemeralStore } from '@fw/token';
import { fwLogin } from './fw-login.js';
import { encodePassword } from './client.js';
import { type LoginProxy } from './login-proxy.js';
import { setup, type LoginFixture } from './test-setup.js';

const login = (f: LoginFixture, account: string, password: string, extra: Record<string, unknown> = {}) =>
  f.agent.post('/fw-api/login').send({ account, pwd: encodePassword(password), ...extra });

/** Fetches a captcha image for `mark` and reads its answer back from the store, as a person reads the image. */
async function solveCaptcha(f: LoginFixture, mark: string): Promise<string> {
  const res = await f.agent.get(`/fw-api/code-img?mark=${mark}`).expect(200).expect('Content-Type', 'image/png').expect('Cache-Control', 'no-store');
  expect(res.body).to.be.instanceOf(Buffer);
  expect((res.body as Buffer).subarray(1, 4).toString()).to.equal('PNG');
  expect((res.body as Buffer).length).to.be.below(16 * 1024);
  const answer = await f.ephemeral.get(`captcha:${mark}`);
  expect(answer, 'captcha answer stored').to.be.a('string');
  return answer!.toUpperCase();
}

const customProxy: Partial<LoginProxy> = {
  async login(account, pwd) {
    if (account !== 'alice' || pwd !== 'directory-pass') throw new Error('directory refused');
    return { id: 1, account: 'alice' };
  },
};

for (const variant of ['default proxy', 'custom proxy'] as const) {
  const password = variant === 'default proxy' ? 'alice-pass' : 'directory-pass';
  const options = variant === 'default proxy' ? {} : { login: { proxy: customProxy } };

  describe(`failed-login limiter (${variant})`, () => {
    let f: LoginFixture;
    beforeEach(async () => {
      f = await setup({ ...options, config: { 'fw-app.verifyCodeCount': 2, 'fw-app.loginLockCount': 6 } });
    });
    afterEach(() => f.cleanup());

    it('asks for a captcha after verifyCodeCount failures and enforces it', async () => {
      expect((await login(f, 'alice', 'bad').expect(401)).body.useVerifyCode).to.equal(false);
      expect((await login(f, 'alice', 'bad').expect(401)).body.useVerifyCode).to.equal(true);
      const missing = await login(f, 'alice', password).expect(401);
      expect(missing.body).to.deep.equal({ pass: false, reason: 'A verification code is required', useVerifyCode: true });
      const wrongCode = await login(f, 'alice', password, { verifyCodeMark: 'mark-0001', verifyCode: 'ZZZZ' }).expect(401);
      expect(wrongCode.body.reason).to.equal('The verification code is wrong or has expired');
    });

    it('accepts a right captcha case-insensitively, once only', async () => {
      await login(f, 'alice', 'bad');
      await login(f, 'alice', 'bad');
      const answer = await solveCaptcha(f, 'mark-0002');
      await login(f, 'alice', password, { verifyCodeMark: 'mark-0002', verifyCode: answer.toLowerCase() }).expect(200);
      expect(await f.ephemeral.get('captcha:mark-0002')).to.equal(undefined);
      // The success cleared the account's and the account+IP counters, not the IP's: the IP's two
      // failures still ask for a captcha, and the pair needs a full loginLockCount (6) new failures to lock.
      for (let i = 0; i < 5; i += 1) expect((await login(f, 'alice', 'bad').expect(401)).body.useVerifyCode).to.equal(true);
      await login(f, 'alice', 'bad').expect(429);
    });

    it('locks the account+IP out with 429 and Retry-After at loginLockCount failures, even for the right password', async () => {
      for (let i = 0; i < 5; i += 1) await login(f, 'alice', 'bad').expect(401);
      const sixth = await login(f, 'alice', 'bad').expect(429);
      expect(Number(sixth.headers['retry-after'])).to.be.within(1, 15 * 60);
      expect(sixth.body).to.include({ pass: false, reason: 'Too many failed logins; try again later' });
      const right = await login(f, 'alice', password).expect(429);
      expect(right.body.retryAfter).to.be.within(1, 15 * 60);
      // No sign-in went through: every row is a failure (issue 19 §6), the last one refused unchecked.
      const rows = await f.store.loginLogs.list({ limit: 10 });
      expect(rows.filter((r) => r.success)).to.have.length(0);
      // Newest first: two wrong passwords, then a captcha was due and never sent, then the lock.
      // (The custom proxy refuses with a text of its own: the class says so, the text is not kept.)
      const refused = variant === 'default proxy' ? 'bad-credentials' : 'refused-by-hook';
      expect(rows.map((r) => r.reason)).to.deep.equal(['throttled', ...Array(4).fill('captcha'), refused, refused]);
    });

    it('counts per IP across accounts (captcha for a new account after failures on others)', async () => {
      await login(f, 'bob', 'x').expect(401);
      await login(f, 'carol', 'x').expect(401);
      expect((await login(f, 'alice', password).expect(401)).body.reason).to.equal('A verification code is required');
    });
  });
}

describe('failed-login limiter against one attacker spraying from one IP', () => {
  it('keeps counting the IP when the attacker logs into their own account between guesses (issue 10 §2)', async function () {
    this.timeout(60_000);
    // Default login limits: captcha after 2 failures, the IP locked at 50. The captcha image rate
    // (which would slow the attacker further) is lifted, so only the failure counters are tested.
    const f = await setup({ login: { captchaRate: { max: 1000, windowSeconds: 60 } } });
    try {
      await f.store.users.create({ account: 'mallory', password: 'mallory-pass', mustChangePassword: false });
      const victims = Array.from({ length: 70 }, (_, i) => `victim${i}`);
      for (const account of victims) await f.store.users.create({ account });
      const asked: boolean[] = [];
      let lockedAt: number | undefined;
      let captchaNeeded = false;
      let marks = 0;
      // A determined attacker solves every captcha they are shown (a captcha farm), so only the counters stop them.
      const withCaptcha = async (): Promise<Record<string, string>> => {
        if (!captchaNeeded) return {};
        const mark = `spray-${String(marks++).padStart(4, '0')}`;
        return { verifyCodeMark: mark, verifyCode: await solveCaptcha(f, mark) };
      };
      for (const [i, victim] of victims.entries()) {
        const guess = await login(f, victim, 'Summer2024!', await withCaptcha());
        if (guess.status === 429) {
          lockedAt = i + 1;
          break;
        }
        expect(guess.status).to.equal(401);
        asked.push(guess.body.useVerifyCode);
        captchaNeeded = guess.body.useVerifyCode;
        const own = await login(f, 'mallory', 'mallory-pass', await withCaptcha());
        expect(own.status, `own login after guess ${i + 1}`).to.equal(200);
      }
      expect(asked[0]).to.equal(false);
      expect(asked.slice(1).every(Boolean), 'a captcha from the second guess on').to.equal(true);
      expect(lockedAt, 'the IP is locked at loginIpLockCount guesses').to.equal(50);
      // Locked means locked: the attacker's own account too, from this IP.
      await login(f, 'mallory', 'mallory-pass').expect(429);
    } finally {
      await f.cleanup();
    }
  });
});

describe('failed-login limiter with verifyCodeCount 0', () => {
  it('always asks for a captcha', async () => {
    const f = await setup({ config: { 'fw-app.verifyCodeCount': 0 } });
    try {
      const res = await login(f, 'alice', 'alice-pass').expect(401);
      expect(res.body).to.deep.equal({ pass: false, reason: 'A verification code is required', useVerifyCode: true });
      const answer = await solveCaptcha(f, 'always-01');
      await login(f, 'alice', 'alice-pass', { verifyCodeMark: 'always-01', verifyCode: answer }).expect(200);
    } finally {
      await f.cleanup();
    }
  });
});

describe('GET /fw-api/code-img rate per IP (issue 10 §6)', () => {
  /** Counts what the captcha route writes. */
  class CountingStore extends MemoryEphemeralStore {
    captchas = 0;
    override async set(key: string, value: string, ttlMs: number): Promise<void> {
      if (key.startsWith('captcha:')) this.captchas += 1;
      return super.set(key, value, ttlMs);
    }
  }

  it('answers 429 with Retry-After past the per-IP rate, writing no more captchas, while other addresses still get theirs', async () => {
    const ephemeral = new CountingStore();
    const f = await setup({ ephemeral, login: { captchaRate: { max: 5, windowSeconds: 60 } } });
    f.app.proxy = true; // so each test client can name its own address
    try {
      const from = (ip: string) => f.agent.get('/fw-api/code-img').set('X-Forwarded-For', ip);
      for (let i = 0; i < 5; i += 1) await from('203.0.113.7').expect(200).expect('Content-Type', 'image/png');
      for (let i = 0; i < 20; i += 1) {
        const refused = await from('203.0.113.7').expect(429);
        expect(refused.body.error.code).to.equal('TOO_MANY_ATTEMPTS');
        expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
      }
      expect(ephemeral.captchas).to.equal(5);
      await from('198.51.100.9').expect(200);
      expect(ephemeral.captchas).to.equal(6);
    } finally {
      await f.cleanup();
    }
  });

  it('has a sane default: 30 images a minute from one address', async () => {
    const f = await setup();
    try {
      for (let i = 0; i < 30; i += 1) await f.agent.get('/fw-api/code-img').expect(200);
      await f.agent.get('/fw-api/code-img').expect(429);
    } finally {
      await f.cleanup();
    }
  });

  it('refuses a bad rate option at start-up', async () => {
    const f = await setup();
    try {
      const base = { store: f.store, tokens: f.tokens, ephemeral: f.ephemeral };
      expect(() => fwLogin({ ...base, captchaRate: { max: 0, windowSeconds: 60 } })).to.throw(FwDefinitionError, /captchaRate\.max/);
      expect(() => fwLogin({ ...base, captchaRate: { max: 5, windowSeconds: 1.5 } })).to.throw(FwDefinitionError, /captchaRate\.windowSeconds/);
    } finally {
      await f.cleanup();
    }
  });
});

describe('GET /fw-api/code-img', () => {
  it('refuses a malformed mark and makes one when none is given', async () => {
    const f = await setup();
    try {
      const bad = await f.agent.get('/fw-api/code-img?mark=%3Cscript%3E').expect(400);
      expect(bad.body.error.code).to.equal('CAPTCHA_MARK_INVALID');
      await f.agent.get(`/fw-api/code-img?mark=${'a'.repeat(65)}`).expect(400);
      const made = await f.agent.get('/fw-api/code-img').expect(200);
      expect(made.headers['x-verify-code-mark']).to.match(/^[A-Za-z0-9_-]{8,64}$/);
    } finally {
      await f.cleanup();
    }
  });
});

describeRedis('failed-login counters shared by two instances', (ns) => {
  it('a failure on one instance counts on the other', async () => {
    const shared = (): EphemeralStore => new RedisEphemeralStore({ redis: ns().redis, prefix: ns().prefix });
    const a = await setup({ ephemeral: shared(), config: { 'fw-app.verifyCodeCount': 2 } });
    const b = await setup({ ephemeral: shared(), config: { 'fw-app.verifyCodeCount': 2 } });
    try {
      await login(a, 'alice', 'bad').expect(401);
      await login(b, 'alice', 'bad').expect(401);
      expect((await login(a, 'alice', 'alice-pass').expect(401)).body.reason).to.equal('A verification code is required');
      const answer = await solveCaptcha(b, 'shared-01');
      await login(a, 'alice', 'alice-pass', { verifyCodeMark: 'shared-01', verifyCode: answer }).expect(200);
    } finally {
      await a.cleanup();
      await b.cleanup();
    }
  });
});
