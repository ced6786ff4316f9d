import { expect } from 'chai';
import { defineModel } from '@fw/core';
import type { TrashRecord } from '@fw/store';
import { meets, meetsAll, trashVisible } from './trash-page.js';

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
    expect(meets(Task, row, { or: [{ field: 'ownerId', op: 'eq', value: 7 }] })).to.equal(undefined);
    expect(meets(Task, row, { field: 'ownerId', op: 'near', value: 7 })).to.equal(undefined);
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
