import { expect } from 'chai';
import { compileMigrations } from './migrations.js';

// Red-team probe of fw_user_pref (issue 20 §5): preference keys name models, whose names are
// case-sensitive, so `table:Book` and `table:book` must be two rows on every dialect. SQL Server's
// default collation folds case; its key column needs a binary collation like fw_kv's.
describe('fw_user_pref red team: case-sensitive keys', () => {
  for (const dialect of ['mssql', 'mysql'] as const) {
    it(`gives the key a binary collation on ${dialect}`, async () => {
      const up = (await compileMigrations(dialect)).flatMap((m) => m.up);
      const create = up.find((s) => /^create table [`[]fw_user_pref[`\]] \(/i.test(s));
      expect(create, 'CREATE TABLE fw_user_pref').to.be.a('string');
      expect(create).to.match(dialect === 'mssql' ? /\[key\] nvarchar\(128\) collate Latin1_General_BIN2 not null/ : /`key` varchar\(128\) not null collate 'utf8mb4_bin'/);
    });
  }
});
