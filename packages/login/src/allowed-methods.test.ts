import { expect } from 'chai';
import { setup, type LoginFixture } from './test-setup.js';

describe('fwLogin(options): a login path asked with another method', () => {
  let f: LoginFixture;
  before(async () => {
    f = await setup();
  });
  after(() => f?.cleanup());

  it('answers 405 METHOD_NOT_ALLOWED with an Allow header naming the methods it takes', async () => {
    for (const [method, path, allow] of [
      ['get', '/fw-api/login', 'POST'],
      ['get', '/fw-api/change-pwd', 'POST'],
      ['get', '/fw-api/open-api/token', 'POST'],
      ['post', '/fw-api/userinfo', 'HEAD, GET'],
      ['put', '/fw-api/logout', 'HEAD, GET, POST'],
    ] as const) {
      const res = await f.agent[method](path).send({});
      expect(res.status, `${method} ${path}`).to.equal(405);
      expect(res.body.error.code).to.equal('METHOD_NOT_ALLOWED');
      expect(res.headers.allow?.split(', ').sort(), `${method} ${path}`).to.deep.equal(allow.split(', ').sort());
    }
  });

  it('answers OPTIONS with the Allow header, and leaves unknown paths to the host', async () => {
    const options = await f.agent.options('/fw-api/login').expect(204);
    expect(options.headers.allow).to.equal('POST');
    const unknown = await f.agent.get('/fw-api/no-such-route');
    expect(unknown.status).to.equal(404);
    expect(unknown.headers.allow).to.equal(undefined);
  });
});
