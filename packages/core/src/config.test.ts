import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { CONFIG_KEYS, FwConfigError, envNames, loadConfig } from '@fw/core';

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'fw-config-'));
  const file = (content: string) => {
    const path = join(dir, `${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, content);
    return path;
  };
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function expectConfigError(fn: () => unknown, key: string, text: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).to.be.instanceOf(FwConfigError);
  expect((caught as FwConfigError).key).to.equal(key);
  expect((caught as Error).message).to.match(text);
}

describe('loadConfig(options)', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({ env: false });
    expect(config['fw.upms.expireTimeByLogin']).to.equal(120);
    expect(config['fw-app.pwdTransferEncrypt']).to.equal(true);
    expect(config['fw-app.verifyCodeCount']).to.equal(2);
    expect(config['fw-app.apiPrefix']).to.equal('/fw-api');
    expect(Object.keys(config)).to.have.members(Object.keys(CONFIG_KEYS));
  });

  it('reads nested, flat and kebab-case values', () => {
    const config = loadConfig({
      env: false,
      values: { fw: { upms: { 'expire-time-by-login': 30 } }, 'fw-app': { pwdTransferEncrypt: false }, 'fw-app.verifyCodeCount': 0 },
    });
    expect(config['fw.upms.expireTimeByLogin']).to.equal(30);
    expect(config['fw-app.pwdTransferEncrypt']).to.equal(false);
    expect(config['fw-app.verifyCodeCount']).to.equal(0);
  });

  it('reads a JSON file, and values in code win over it, and the environment wins over both', () => {
    const { file, cleanup } = setup();
    try {
      const path = file(JSON.stringify({ fw: { upms: { expireTimeByLogin: '45' } }, 'fw-app': { verifyCodeCount: 5 }, server: { port: 1 } }));
      expect(loadConfig({ file: path, env: false })['fw.upms.expireTimeByLogin']).to.equal(45);
      const config = loadConfig({ file: path, values: { 'fw.upms.expireTimeByLogin': 50 }, env: { FW_APP_VERIFY_CODE_COUNT: '7' } });
      expect(config['fw.upms.expireTimeByLogin']).to.equal(50);
      expect(config['fw-app.verifyCodeCount']).to.equal(7);
    } finally {
      cleanup();
    }
  });

  it('reads both environment forms', () => {
    expect(envNames('fw-app.pwdTransferEncrypt')).to.deep.equal(['FW_APP_PWD_TRANSFER_ENCRYPT', 'FWAPP_PWDTRANSFERENCRYPT']);
    expect(loadConfig({ env: { FW_UPMS_EXPIRE_TIME_BY_LOGIN: '15' } })['fw.upms.expireTimeByLogin']).to.equal(15);
    expect(loadConfig({ env: { FWAPP_PWDTRANSFERENCRYPT: 'false' } })['fw-app.pwdTransferEncrypt']).to.equal(false);
    expect(loadConfig({ env: { FW_DB_URL: 'sqlite:x', FW_UPMS_SLIDING_EXPIRATION: '1' } })['fw.upms.slidingExpiration']).to.equal(true);
  });

  describe('rejects bad values at start-up, naming the key', () => {
    it('a negative captcha count', () =>
      expectConfigError(() => loadConfig({ env: false, values: { 'fw-app.verifyCodeCount': -1 } }), 'fw-app.verifyCodeCount', /between 0 and 1000/));
    it('a fractional expiry', () =>
      expectConfigError(() => loadConfig({ env: false, values: { fw: { upms: { expireTimeByLogin: 1.5 } } } }), 'fw.upms.expireTimeByLogin', /whole number/));
    it('a zero expiry', () => expectConfigError(() => loadConfig({ env: false, values: { 'fw.upms.expireTimeByLogin': 0 } }), 'fw.upms.expireTimeByLogin', /between 1/));
    it('a boolean that is not one', () =>
      expectConfigError(() => loadConfig({ env: { FW_APP_PWD_TRANSFER_ENCRYPT: 'maybe' } }), 'fw-app.pwdTransferEncrypt', /FW_APP_PWD_TRANSFER_ENCRYPT.*"maybe"/));
    it('an unknown key in the fw namespaces', () =>
      expectConfigError(() => loadConfig({ env: false, values: { 'fw-app': { verifyCodeCnt: 3 } } }), 'fw-app.verifyCodeCnt', /unknown configuration key/));
    it('a prefix that is not a path', () => expectConfigError(() => loadConfig({ env: false, values: { 'fw-app.apiPrefix': 'api' } }), 'fw-app.apiPrefix', /must match/));
    it('a missing file', () => {
      let caught: unknown;
      try {
        loadConfig({ env: false, file: '/nonexistent/fw.json' });
      } catch (error) {
        caught = error;
      }
      expect(caught).to.be.instanceOf(FwConfigError);
      expect((caught as Error).message).to.match(/\/nonexistent\/fw\.json: cannot read/);
    });
    it('a file that is not JSON', () => {
      const { file, cleanup } = setup();
      try {
        const path = file('{ fw: ');
        expect(() => loadConfig({ env: false, file: path })).to.throw(FwConfigError, /cannot read the configuration file/);
      } finally {
        cleanup();
      }
    });
  });
});
