import { expect } from 'chai';
import { hashPassword, verifyPassword } from '@fw/core';

describe('hashPassword / verifyPassword', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored.hash).to.match(/^[0-9a-f]{128}$/);
    expect(stored.salt).to.match(/^[0-9a-f]{32}$/);
    expect(await verifyPassword('correct horse', stored)).to.equal(true);
    expect(await verifyPassword('correct horsE', stored)).to.equal(false);
    expect(await verifyPassword('', stored)).to.equal(false);
  });

  it('salts each hash, so equal passwords hash differently', async () => {
    const a = await hashPassword('same');
    const b = await hashPassword('same');
    expect(a.salt).to.not.equal(b.salt);
    expect(a.hash).to.not.equal(b.hash);
    expect(await verifyPassword('same', { hash: a.hash, salt: b.salt })).to.equal(false);
  });

  it('treats a malformed stored hash as a mismatch', async () => {
    const { salt } = await hashPassword('x');
    expect(await verifyPassword('x', { hash: 'abc', salt })).to.equal(false);
  });

  it('normalizes Unicode so composed and decomposed forms match', async () => {
    const stored = await hashPassword('caf\u00e9');
    expect(await verifyPassword('cafe\u0301', stored)).to.equal(true);
  });
});
