import { expect } from 'chai';
import { isFwError } from '@fw/core';
import { describeRoutes, routerPath } from '@fw/http';
import { MemoryEphemeralStore } from '@fw/token';
import { activityRoutes } from './activity-routes.js';
import { encodePassword } from './client.js';
import { loginRouter, loginRoutes } from './fw-login.js';
import { CHANGE_PASSWORD_BODY, LOGIN_BODY, OPEN_API_TOKEN_BODY } from './sign-in-routes.js';
import { resolveOptions } from './login-options.js';
import { PREF_BODY, prefRoutes } from './pref-routes.js';
import { sessionRoutes } from './session-routes.js';
import { setup, type LoginFixture } from './test-setup.js';

const ALL = [...loginRoutes, ...sessionRoutes, ...activityRoutes, ...prefRoutes];

/** What `parse` threw, as the error body a client would read. */
function refusal(parse: () => unknown): { status: number; code: string; message: string; details?: unknown } {
  try {
    parse();
  } catch (error) {
    if (!isFwError(error)) throw error;
    return { status: error.status, code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  }
  throw new Error('the shape accepted the body');
}

describe('fwLogin(options): the routes it mounts are the routes it declares (issue 22 §5)', () => {
  let f: LoginFixture;
  before(async () => {
    f = await setup();
  });
  after(() => f?.cleanup());

  it('mounts every declared method and path under the prefix, and nothing else', () => {
    const router = loginRouter(resolveOptions({ store: f.store, tokens: f.tokens, ephemeral: new MemoryEphemeralStore(), config: f.config }));
    // Koa's router answers HEAD wherever it answers GET; HEAD is no route of its own.
    const mounted = router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${layer.path}`));
    const declared = ALL.map((r) => `${r.method.toUpperCase()} /fw-api${routerPath(r.path)}`);
    expect([...mounted].sort()).to.deep.equal([...declared].sort());
    expect(new Set(mounted).size).to.equal(mounted.length);
    // And the description lists each of them once.
    const described = Object.entries(describeRoutes(ALL)).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} /fw-api${routerPath(path)}`));
    expect(described.sort()).to.deep.equal([...declared].sort());
  });

  it('answers each declared route (never the 404 or 405 of a path it does not serve)', async () => {
    for (const route of ALL) {
      const path = `/fw-api${route.path.replace('{id}', '0123456789abcdef01234567').replace('{key}', 'table:Book')}`;
      const res = await f.agent[route.method](path);
      expect([404, 405], `${route.method} ${path}: ${JSON.stringify(res.body)}`).to.not.include(res.status);
      if (route.security === 'token') expect(res.status, `${route.method} ${path}`).to.equal(401);
    }
  });

  it('checks a preference key before reading the body: a bad key is 400, whatever the body', async () => {
    const login = await f.agent
      .post('/fw-api/login')
      .send({ account: 'alice', pwd: encodePassword('alice-pass') })
      .expect(200);
    const token = login.body.token as string;
    const tooLarge = { value: { order: Array.from({ length: 2000 }, (_, i) => `column_${i}`) } };
    for (const request of [
      f.agent.put('/fw-api/prefs/theme:dark').set('token', token).send(tooLarge),
      f.agent.put('/fw-api/prefs/theme:dark').set('token', token).set('content-type', 'text/plain').send('not json'),
    ]) {
      const res = await request.expect(400);
      expect(res.body.error).to.include({ code: 'BAD_REQUEST', message: 'A preference key is table:<model name>' });
    }
    // With a good key the same bodies meet the body's own checks.
    expect((await f.agent.put('/fw-api/prefs/table:Book').set('token', token).send(tooLarge).expect(413)).body.error.code).to.equal('PAYLOAD_TOO_LARGE');
    expect((await f.agent.put('/fw-api/prefs/table:Book').set('token', token).set('content-type', 'text/plain').send('x').expect(415)).body.error.code).to.equal(
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });
});

describe('the body shapes of the login routes: the refusals clients have always seen', () => {
  it('POST /login: 400 BAD_REQUEST, one detail per malformed field, in field order', () => {
    expect(refusal(() => LOGIN_BODY.parse([], undefined))).to.deep.equal({ status: 400, code: 'BAD_REQUEST', message: 'The body must be a JSON object' });
    expect(refusal(() => LOGIN_BODY.parse({ account: '', pwd: 5, verifyCode: {}, verifyCodeMark: 'x'.repeat(65) }, undefined))).to.deep.equal({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'The login body is malformed',
      details: [
        { path: 'account', type: 'typeError', message: 'account must be a string of 1 to 128 characters' },
        { path: 'pwd', type: 'typeError', message: 'pwd must be a string of 1 to 4096 characters' },
        { path: 'verifyCode', type: 'typeError', message: 'verifyCode must be a string of at most 64 characters' },
        { path: 'verifyCodeMark', type: 'typeError', message: 'verifyCodeMark must be a string of at most 64 characters' },
      ],
    });
    // A good body: the account NFC-normalised, null captcha fields dropped, the body as sent kept for the login hook.
    const sent = { account: 'Rene\u0301', pwd: 'p', verifyCode: null, tenant: 'north' };
    expect(LOGIN_BODY.parse(sent, undefined)).to.deep.equal({ input: { account: 'Ren\u00e9', pwd: 'p' }, sent });
  });

  it('POST /change-pwd and POST /open-api/token: 400 BAD_REQUEST with their details', () => {
    expect(refusal(() => CHANGE_PASSWORD_BODY.parse({ pwd: 'a', newPwd: '' }, undefined))).to.deep.equal({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'The change-password body is malformed',
      details: [
        { path: 'newPwd', type: 'typeError', message: 'newPwd must be a string of 1 to 4096 characters' },
        { path: 'newPwd2', type: 'typeError', message: 'newPwd2 must be a string of 1 to 4096 characters' },
      ],
    });
    expect(refusal(() => OPEN_API_TOKEN_BODY.parse('key', undefined))).to.deep.equal({ status: 400, code: 'BAD_REQUEST', message: 'The body must be { appId, secret }' });
    expect(refusal(() => OPEN_API_TOKEN_BODY.parse({ appId: 'app\u0000', secret: 's'.repeat(513) }, undefined)).details).to.deep.equal([
      { path: 'appId', type: 'typeError', message: 'appId must not contain control characters' },
      { path: 'secret', type: 'typeError', message: 'secret must be a string of 1 to 512 characters' },
    ]);
    expect(OPEN_API_TOKEN_BODY.parse({ appId: 'app', secret: 'key', extra: 1 }, undefined)).to.deep.equal({ appId: 'app', secret: 'key' });
  });

  it('PUT /prefs/{key}: 422 VALIDATION_FAILED for a body that is not { value } or a bad layout, 413 past the limit', () => {
    expect(refusal(() => PREF_BODY.parse({ value: {}, more: 1 }, undefined))).to.deep.equal({
      status: 422,
      code: 'VALIDATION_FAILED',
      message: 'The body is { value }',
      details: [{ path: 'value', type: 'required', message: 'value is required, and nothing else' }],
    });
    expect(refusal(() => PREF_BODY.parse({ value: { density: 'tiny' } }, undefined)).details).to.deep.equal([
      { path: 'value.density', type: 'oneOf', message: 'value.density must be one of small, middle, large' },
    ]);
    // The size is held again after parsing: a host's own body parser may have read a larger body.
    expect(refusal(() => PREF_BODY.parse({ value: { colour: 'x'.repeat(9000) } }, undefined))).to.include({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(PREF_BODY.parse({ value: { density: 'small', widths: { title: 120 } } }, undefined)).to.deep.equal({ density: 'small', widths: { title: 120 } });
  });

  it('publishes, for each body, the schema its parser holds requests to', () => {
    const paths = describeRoutes(ALL);
    const bodyOf = (path: string, method: string) => (paths[path]![method]!.requestBody as { content: Record<string, { schema: unknown }> }).content['application/json']!.schema;
    expect(bodyOf('/login', 'post')).to.equal(LOGIN_BODY.schema);
    expect(bodyOf('/change-pwd', 'post')).to.equal(CHANGE_PASSWORD_BODY.schema);
    expect(bodyOf('/open-api/token', 'post')).to.equal(OPEN_API_TOKEN_BODY.schema);
    expect(bodyOf('/prefs/{key}', 'put')).to.equal(PREF_BODY.schema);
  });
});
