import { expect } from 'chai';
import { defineModel } from '@fw/core';
import type { TrashRecord } from '@fw/store';
import { meets, meetsAll } from './trash-filter.js';
import { trashVisible } from './trash-page.js';

const Task = defineModel({
  name: 'Task',
  fields: {
    title: {},
    ownerId: { edit: { type: 'HIDDEN', integer: true } },
    due: { edit: { type: 'DATE' } },
    at: { edit: { type: 'DATETIME' } },
    done: { edit: { type: 'BOOLEAN' } },
    tags: { edit: { type: 'TAGS' } },
    pin: { edit: { type: 'PASSWORD' } },
  },
});

const row = { id: 1, title: 'Write Docs', ownerId: 7, due: '2026-11-27', at: '2026-11-27T10:00:00.000Z', done: false, tags: ['a'] };

function record(values: Record<string, unknown>, deletedBy: number): TrashRecord {
  return { id: 1, model: 'Task', rowId: String(values.id), data: { values, secrets: {} }, deletedBy, deletedAt: new Date(), batch: null };
}

describe('trash visibility: conditions judged on stored values', () => {
  it('tells for sure what the database would answer alike on every dialect', () => {
    expect(meets(Task, row, { field: 'ownerId', op: 'eq', value: 7 })).to.equal(true);
    expect(meets(Task, row, { field: 'ownerId', op: 'eq', value: '7' })).to.equal(true);
    expect(meets(Task, row, { field: 'ownerId', op: 'eq', value: 8 })).to.equal(false);
    expect(meets(Task, row, { field: 'ownerId', op: 'in', value: [1, 7] })).to.equal(true);
    expect(meets(Task, row, { field: 'due', op: 'between', value: ['2026-11-01', '2026-11-30'] })).to.equal(true);
    expect(meets(Task, row, { field: 'due', op: 'lt', value: '2026-11-27' })).to.equal(false);
    expect(meets(Task, row, { field: 'at', op: 'gte', value: '2026-11-27T09:00:00Z' })).to.equal(true);
    expect(meets(Task, row, { field: 'done', op: 'eq', value: false })).to.equal(true);
    expect(meets(Task, row, { field: 'title', op: 'like', value: 'docs' })).to.equal(true);
    expect(meets(Task, { ...row, title: null }, { field: 'title', op: 'isNull' })).to.equal(true);
    expect(meets(Task, { ...row, title: null }, { field: 'title', op: 'eq', value: 'x' })).to.equal(false);
    expect(meets(Task, { ...row, title: null }, { field: 'title', op: 'ne', value: 'x' })).to.equal(true);
  });

  it('leaves open what depends on the database or is not known here', () => {
    // Case-insensitive collations (MariaDB) would call these equal.
    expect(meets(Task, row, { field: 'title', op: 'eq', value: 'write docs' })).to.equal(false);
    expect(meets(Task, row, { field: 'title', op: 'ne', value: 'write docs' })).to.equal(undefined);
    expect(meets(Task, row, { field: 'title', op: 'gt', value: 'A' })).to.equal(undefined);
    expect(meets(Task, row, { field: 'tags', op: 'eq', value: 'a' })).to.equal(undefined);
    expect(meets(Task, row, { field: 'pin', op: 'eq', value: 'x' })).to.equal(undefined);
    expect(meets(Task, row, { field: 'nope', op: 'eq', value: 1 })).to.equal(undefined);
    expect(meets(Task, row, { or: [{ field: 'ownerId', op: 'eq', value: 7 }], field: 'title' })).to.equal(undefined);
    expect(meets(Task, row, { field: 'ownerId', op: 'near', value: 7 })).to.equal(undefined);
  });

  it('judges or / and groups in three-valued logic, notIn and startsWith as the table query does', () => {
    const seven = { field: 'ownerId', op: 'eq', value: 7 };
    const eight = { field: 'ownerId', op: 'eq', value: 8 };
    const open = { field: 'title', op: 'gt', value: 'A' };
    expect(meets(Task, row, { or: [eight, seven] })).to.equal(true);
    expect(meets(Task, row, { or: [eight, eight] })).to.equal(false);
    expect(meets(Task, row, { or: [eight, open] })).to.equal(undefined);
    expect(meets(Task, row, { or: [seven, open] })).to.equal(true);
    expect(meets(Task, row, { and: [seven, open] })).to.equal(undefined);
    expect(meets(Task, row, { and: [eight, open] })).to.equal(false);
    // An or of nothing holds for no row (the SQL is 1 = 0); an and of nothing holds.
    expect(meets(Task, row, { or: [] })).to.equal(false);
    expect(meets(Task, row, { and: [] })).to.equal(true);
    expect(meets(Task, row, { and: [{ or: [eight, { and: [seven, { field: 'done', op: 'eq', value: false }] }] }] })).to.equal(true);
    expect(meets(Task, row, { or: [seven], and: [seven] })).to.equal(undefined);
    // notIn: an empty cell is not one of the values (SQL: NOT IN … OR col IS NULL).
    expect(meets(Task, row, { field: 'ownerId', op: 'notIn', value: [1, 7] })).to.equal(false);
    expect(meets(Task, row, { field: 'ownerId', op: 'notIn', value: [1, 2] })).to.equal(true);
    expect(meets(Task, { ...row, ownerId: null }, { field: 'ownerId', op: 'notIn', value: [1] })).to.equal(true);
    expect(meets(Task, row, { field: 'title', op: 'notIn', value: ['Other'] })).to.equal(true);
    // Equal under MariaDB's case-insensitive collation, not elsewhere.
    expect(meets(Task, row, { field: 'title', op: 'notIn', value: ['write docs'] })).to.equal(undefined);
    // startsWith: a prefix, ASCII case ignored, wildcards plain.
    expect(meets(Task, row, { field: 'title', op: 'startsWith', value: 'wRITE' })).to.equal(true);
    expect(meets(Task, row, { field: 'title', op: 'startsWith', value: 'Docs' })).to.equal(false);
    expect(meets(Task, row, { field: 'title', op: 'startsWith', value: 'W%' })).to.equal(false);
    expect(meets(Task, { ...row, title: null }, { field: 'title', op: 'startsWith', value: 'W' })).to.equal(false);
    // Case and accents outside ASCII fold differently per database: a miss is not sure.
    expect(meets(Task, { ...row, title: 'Élan' }, { field: 'title', op: 'startsWith', value: 'él' })).to.equal(undefined);
    expect(meets(Task, { ...row, title: 'Élan' }, { field: 'title', op: 'like', value: 'Él' })).to.equal(true);
    expect(meets(Task, { ...row, title: '三体' }, { field: 'title', op: 'like', value: '二' })).to.equal(false);
    // …but a miss even under the loosest folding (accents dropped, any case) is sure everywhere.
    expect(meets(Task, { ...row, title: 'Émile' }, { field: 'title', op: 'like', value: 'dune' })).to.equal(false);
    expect(meets(Task, { ...row, title: 'Москва' }, { field: 'title', op: 'startsWith', value: 'ки' })).to.equal(false);
    expect(meets(Task, { ...row, title: 'Москва' }, { field: 'title', op: 'startsWith', value: 'мос' })).to.equal(undefined);
  });

  it('tells more where the store’s dialect compares text exactly (SQLite, PostgreSQL) and less where it ignores case (MariaDB)', () => {
    const elan = { ...row, title: 'Élan' };
    // SQLite folds ASCII only and compares bytes: every text condition is sure.
    expect(meets(Task, elan, { field: 'title', op: 'startsWith', value: 'él' }, 'sqlite')).to.equal(false);
    expect(meets(Task, elan, { field: 'title', op: 'startsWith', value: 'ÉL' }, 'sqlite')).to.equal(true);
    expect(meets(Task, row, { field: 'title', op: 'ne', value: 'write docs' }, 'sqlite')).to.equal(true);
    expect(meets(Task, row, { field: 'title', op: 'notIn', value: ['write docs'] }, 'postgres')).to.equal(true);
    expect(meets(Task, row, { field: 'title', op: 'gt', value: 'Wa' }, 'sqlite')).to.equal(true);
    expect(meets(Task, row, { field: 'title', op: 'gt', value: 'a' }, 'sqlite')).to.equal(false);
    // Byte order, not UTF-16 order: U+FF5E sorts below an astral character in UTF-8 too.
    expect(meets(Task, { ...row, title: '\u{1F600}' }, { field: 'title', op: 'gt', value: '\uFF5E' }, 'sqlite')).to.equal(true);
    expect(meets(Task, row, { field: 'title', op: 'gt', value: 'A' }, 'postgres')).to.equal(undefined);
    // MariaDB: equal in another case, accent or with trailing spaces, so not told.
    expect(meets(Task, row, { field: 'title', op: 'eq', value: 'write docs' }, 'mysql')).to.equal(undefined);
    expect(meets(Task, row, { field: 'title', op: 'in', value: ['Write Docs ', 'x'] }, 'mysql')).to.equal(undefined);
    expect(meets(Task, row, { field: 'title', op: 'in', value: ['Write Dócs'] }, 'mysql')).to.equal(undefined);
    expect(meets(Task, row, { field: 'title', op: 'eq', value: 'write docs' }, 'postgres')).to.equal(false);
    expect(meets(Task, row, { field: 'title', op: 'eq', value: 'Other' }, 'mysql')).to.equal(false);
  });

  it('one sure failure decides; otherwise an open condition leaves the whole open', () => {
    expect(meetsAll(Task, row, [{ field: 'title', op: 'gt', value: 'A' }, { field: 'ownerId', op: 'eq', value: 8 }])).to.equal(false);
    expect(meetsAll(Task, row, [{ field: 'title', op: 'gt', value: 'A' }, { field: 'ownerId', op: 'eq', value: 7 }])).to.equal(undefined);
    expect(meetsAll(Task, row, [])).to.equal(true);
  });

  it('shows a row that cannot be judged to the person who deleted it only', () => {
    const actor = (id: number) => ({ user: { id, account: `u${id}`, isAdmin: false }, ip: null, source: 'http' as const });
    const open = [{ field: 'title', op: 'gt', value: 'A' }];
    expect(trashVisible(Task, actor(3), record(row, 3), open)).to.equal(true);
    expect(trashVisible(Task, actor(4), record(row, 3), open)).to.equal(false);
    const owner = [{ field: 'ownerId', op: 'eq', value: 4 }];
    // Sure answers win over who deleted the row.
    expect(trashVisible(Task, actor(3), record(row, 3), owner)).to.equal(false);
    expect(trashVisible(Task, actor(4), record({ ...row, ownerId: 4 }, 3), owner)).to.equal(true);
    expect(trashVisible(Task, actor(9), record(row, 3), [])).to.equal(true);
  });
});
