import { expect } from 'chai';
import { FwDefinitionError, PASSWORD_RULES, isCommonPassword, loadConfig, passwordPolicy, passwordPolicyFromConfig, resolvePasswordPolicy } from '@fw/core';

describe('passwordPolicy(options)', () => {
  it('refuses what the issue found accepted: one character, three, the account, common passwords', () => {
    const policy = passwordPolicy();
    const types = (pwd: string, account?: string) => policy.check(pwd, { account, path: 'newPwd' }).map((r) => r.type);
    expect(types('a')).to.deep.equal(['minLength']);
    expect(types('abc')).to.deep.equal(['minLength']);
    expect(types('abc123')).to.deep.equal(['minLength', 'notCommon']);
    expect(types('x')).to.include('minLength');
    expect(types('password123')).to.deep.equal(['notCommon']);
    expect(types('qwertyuiop')).to.deep.equal(['notCommon']);
    expect(types('QwertyUIOP')).to.deep.equal(['notCommon']);
    expect(types('carol-wilson', 'carol-wilson')).to.deep.equal(['notAccount']);
    expect(types('Carol-Wilson', 'carol-wilson')).to.deep.equal(['notAccount']);
    expect(types('my-admin-2026-x', 'admin')).to.deep.equal(['notAccount']);
    // Short accounts are compared whole only: "al" inside a passphrase is no weakness.
    expect(types('walnut-table-lamp', 'al')).to.deep.equal([]);
    expect(types('correct horse battery', 'alice')).to.deep.equal([]);
  });

  it('names the field and the rule of each refusal, in rule order', () => {
    const [refusal] = passwordPolicy().check('short', { path: 'password' });
    expect(refusal).to.deep.include({ path: 'password', type: 'minLength' });
    expect(refusal!.message).to.match(/at least 10 characters/);
    expect(passwordPolicy().check('abcdefgh', {})[0]?.path).to.equal('password');
  });

  it('counts characters, not UTF-16 units, and bounds the length at 200 by default', () => {
    const policy = passwordPolicy();
    expect(policy.check('😀'.repeat(9)).map((r) => r.type)).to.deep.equal(['minLength']);
    expect(policy.check('😀'.repeat(10))).to.deep.equal([]);
    expect(policy.check('k'.repeat(200))).to.deep.equal([]);
    expect(policy.check('k'.repeat(201)).map((r) => r.type)).to.deep.equal(['maxLength']);
  });

  it('is configurable: fw-app.passwordMinLength and its env form, options over both', () => {
    expect(passwordPolicyFromConfig(loadConfig({ env: false })).minLength).to.equal(10);
    const config = loadConfig({ env: { FW_APP_PASSWORD_MIN_LENGTH: '14' } });
    expect(config['fw-app.passwordMinLength']).to.equal(14);
    expect(
      passwordPolicyFromConfig(config)
        .check('abcdefghijklm')
        .map((r) => r.type),
    ).to.deep.equal(['minLength']);
    expect(resolvePasswordPolicy(config, { minLength: 8 }).minLength).to.equal(8);
    const own = passwordPolicy({ minLength: 6, refuseCommon: false });
    expect(resolvePasswordPolicy(config, own)).to.equal(own);
    expect(own.check('qwerty')).to.deep.equal([]);
    expect(own.describe()).to.deep.equal({ minLength: 6, maxLength: 200, rules: ['minLength', 'maxLength', 'notAccount'] });
    expect(passwordPolicy().describe().rules).to.deep.equal([...PASSWORD_RULES]);
  });

  it('refuses bad options at once', () => {
    expect(() => passwordPolicy({ minLength: 0 })).to.throw(FwDefinitionError, /minLength/);
    expect(() => passwordPolicy({ minLength: 30, maxLength: 20 })).to.throw(FwDefinitionError, /maxLength/);
    expect(() => passwordPolicy({ maxLength: 5000 })).to.throw(FwDefinitionError, /maxLength/);
    expect(() => loadConfig({ env: { FW_APP_PASSWORD_MIN_LENGTH: '0' } })).to.throw(/passwordMinLength/);
  });

  it('ships the 10,000 most common passwords, compared lower-cased', () => {
    expect(isCommonPassword('123456')).to.equal(true);
    expect(isCommonPassword('PASSWORD')).to.equal(true);
    expect(isCommonPassword('iloveyou')).to.equal(true);
    expect(isCommonPassword('vivid-otter-quartz')).to.equal(false);
  });
});
