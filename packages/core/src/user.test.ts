import { expect } from 'chai';
import { toFwUser } from './user.js';

describe('toFwUser(row, options)', () => {
  const row = { id: 3, account: 'ann', name: 'Ann', status: 'normal', expireDate: new Date(), whiteIp: '10.0.0.1' };

  it('keeps only the public fields', () => {
    expect(toFwUser({ ...row, name: undefined, isAdmin: undefined, status: 'locked' })).to.deep.equal({ id: 3, account: 'ann', name: null, isAdmin: false });
  });

  it("reads every dialect's stored flag: true / 1 are administrators, false / 0 / null are not", () => {
    // PostgreSQL and SQL Server give booleans; SQLite, MySQL and MariaDB give 1 / 0.
    for (const stored of [true, 1]) expect(toFwUser({ ...row, isAdmin: stored }).isAdmin, String(stored)).to.equal(true);
    for (const stored of [false, 0, null, undefined]) expect(toFwUser({ ...row, isAdmin: stored }).isAdmin, String(stored)).to.equal(false);
  });

  it('makes the user an administrator with { admin: true } (a token a login hook made so), whatever the row says', () => {
    expect(toFwUser({ ...row, isAdmin: false }, { admin: true }).isAdmin).to.equal(true);
    expect(toFwUser({ ...row, isAdmin: 0 }, { admin: false }).isAdmin).to.equal(false);
  });
});
