import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { Book, Note, setupData, type DataFixture } from '../test-setup.js';
import { DEFAULT_QUERY_LIMITS } from './query.js';
import { RowReader } from './rows.js';
import { conditionsKey } from './counts.js';

const api = '/fw-api';

// Issue 23 §1: `conditions` nest `{ or: [...] }` / `{ and: [...] }` groups, with per-type
// operators; the same field checks as a flat list, row visibility ANDed outside the groups, and
// page plans keyed by the groups' shape.
describeEachSql('table query: condition groups and operators', (db) => {
  let f: DataFixture;
  let admin: string;
  let bob: string;
  const ids: Record<string, number> = {};

  before(async () => {
    f = await setupData(db().url);
    admin = await f.token('admin');
    bob = await f.token('bob');
    const books = [
      { title: 'Dune', genre: 'novel', price: 12, published: '1965-08-01', inPrint: true },
      { title: 'Emma', genre: 'novel', price: 4, inPrint: true },
      { title: 'Essays 100%', genre: 'essay', price: 9, published: '2001-01-01', inPrint: false },
      { title: 'Dubliners', genre: 'essay', published: '1914-06-15', inPrint: true },
      { title: 'dune messiah', genre: 'novel', price: 7, published: '1969-10-15', inPrint: false },
      { title: 'Walden', price: 3, published: '1854-08-09', inPrint: true },
    ];
    for (const book of books) {
      const res = await f.agent.post(`${api}/data/modify/Book`).set('token', admin).send(book);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      ids[book.title] = Number(res.body.id);
    }
    // Notes of alice and of bob; Note shows a non-administrator only their own rows.
    const owner = Note.fields.ownerId!.column;
    const subject = Note.fields.subject!.column;
    for (const [user, n] of [['alice', 3], ['bob', 2]] as const) {
      for (let i = 0; i < n; i++) await f.store.knex(Note.table).insert({ [subject]: `${user} ${i}`, [owner]: f.users[user].id });
    }
  });
  after(() => f?.destroy());

  const table = (conditions: unknown, token = admin, extra: Record<string, unknown> = {}) =>
    f.agent.post(`${api}/data/table/Book`).set('token', token).send({ conditions, size: 50, ...extra });
  const titles = async (conditions: unknown): Promise<string[]> => {
    const res = await table(conditions);
    expect(res.status, `${JSON.stringify(conditions)}: ${JSON.stringify(res.body)}`).to.equal(200);
    expect(res.body.total).to.equal(res.body.rows.length);
    return (res.body.rows as Array<{ title: string }>).map((r) => r.title).sort();
  };
  const refused = async (conditions: unknown, code: string, path: string) => {
    const res = await table(conditions);
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.code).to.equal(code);
    expect(res.body.error.details[0].path).to.equal(path);
    return res;
  };

  it('nests or and and groups, the top level still AND', async () => {
    const cheapInPrint = { and: [{ field: 'price', op: 'lt', value: 5 }, { field: 'inPrint', value: true }] };
    expect(await titles([{ or: [{ field: 'genre', op: 'eq', value: 'essay' }, cheapInPrint] }])).to.deep.equal(['Dubliners', 'Emma', 'Essays 100%', 'Walden']);
    // A condition beside the group narrows it (AND).
    expect(await titles([{ or: [{ field: 'genre', op: 'eq', value: 'essay' }, cheapInPrint] }, { field: 'published', op: 'notNull' }])).to.deep.equal(['Dubliners', 'Essays 100%', 'Walden']);
    // Four levels deep.
    const deep = { or: [{ and: [{ or: [{ and: [{ field: 'title', op: 'eq', value: 'Dune' }] }] }] }, { field: 'title', op: 'eq', value: 'Emma' }] };
    expect(await titles([deep])).to.deep.equal(['Dune', 'Emma']);
  });

  it('applies every operator to text, number, date, boolean and choice fields', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{ field: 'title', op: 'eq', value: 'Dune' }, ['Dune']],
      [{ field: 'title', op: 'ne', value: 'Dune' }, ['Dubliners', 'Emma', 'Essays 100%', 'Walden', 'dune messiah']],
      [{ field: 'title', op: 'in', value: ['Dune', 'Emma'] }, ['Dune', 'Emma']],
      [{ field: 'title', op: 'notIn', value: ['Dune', 'Emma'] }, ['Dubliners', 'Essays 100%', 'Walden', 'dune messiah']],
      [{ field: 'title', op: 'like', value: 'DUNE' }, ['Dune', 'dune messiah']],
      [{ field: 'title', op: 'startsWith', value: 'du' }, ['Dubliners', 'Dune', 'dune messiah']],
      // Wildcards in the value are plain characters.
      [{ field: 'title', op: 'startsWith', value: '_' }, []],
      [{ field: 'title', op: 'startsWith', value: 'Essays 100%' }, ['Essays 100%']],
      [{ field: 'title', op: 'like', value: '0%' }, ['Essays 100%']],
      [{ field: 'title', op: 'isNull' }, []],
      [{ field: 'price', op: 'eq', value: 12 }, ['Dune']],
      [{ field: 'price', op: 'ne', value: 12 }, ['Dubliners', 'Emma', 'Essays 100%', 'Walden', 'dune messiah']],
      [{ field: 'price', op: 'in', value: [4, '7'] }, ['Emma', 'dune messiah']],
      [{ field: 'price', op: 'notIn', value: [4, 7] }, ['Dubliners', 'Dune', 'Essays 100%', 'Walden']],
      [{ field: 'price', op: 'between', value: [4, 9] }, ['Emma', 'Essays 100%', 'dune messiah']],
      [{ field: 'price', op: 'isNull' }, ['Dubliners']],
      [{ field: 'published', op: 'between', value: ['1900-01-01', '1970-01-01'] }, ['Dubliners', 'Dune', 'dune messiah']],
      [{ field: 'published', op: 'notIn', value: ['1965-08-01'] }, ['Dubliners', 'Emma', 'Essays 100%', 'Walden', 'dune messiah']],
      [{ field: 'published', op: 'isNull' }, ['Emma']],
      [{ field: 'inPrint', op: 'eq', value: false }, ['Essays 100%', 'dune messiah']],
      [{ field: 'inPrint', op: 'notIn', value: [true] }, ['Essays 100%', 'dune messiah']],
      [{ field: 'inPrint', op: 'in', value: ['false'] }, ['Essays 100%', 'dune messiah']],
      [{ field: 'genre', op: 'notIn', value: ['novel'] }, ['Dubliners', 'Essays 100%', 'Walden']],
      [{ field: 'genre', op: 'startsWith', value: 'ESS' }, ['Dubliners', 'Essays 100%']],
      [{ field: 'genre', op: 'notNull' }, ['Dubliners', 'Dune', 'Emma', 'Essays 100%', 'dune messiah']],
    ];
    for (const [condition, want] of cases) {
      // Alone, and as the only member of an or group: the same rows.
      expect(await titles([condition]), JSON.stringify(condition)).to.deep.equal(want);
      expect(await titles([{ or: [condition] }]), `or ${JSON.stringify(condition)}`).to.deep.equal(want);
    }
  });

  it('refuses bad groups and bad members with BAD_QUERY / UNKNOWN_FIELD naming the place', async () => {
    await refused([{ field: 'genre', value: 'novel' }, { or: [{ field: 'price', op: 'eq', value: 'x' }] }], 'BAD_QUERY', 'conditions[1].or[0].value');
    await refused([{ or: [] }], 'BAD_QUERY', 'conditions[0].or');
    await refused([{ and: 'title' }], 'BAD_QUERY', 'conditions[0].and');
    await refused([{ or: [{ field: 'title', op: 'notNull' }], and: [{ field: 'title', op: 'notNull' }] }], 'BAD_QUERY', 'conditions[0]');
    await refused([{ or: [{ field: 'title', op: 'notNull' }], field: 'title' }], 'BAD_QUERY', 'conditions[0]');
    await refused([{ or: [{ field: 'title', op: 'notNull' }, { field: 'nope', op: 'eq', value: 1 }] }], 'UNKNOWN_FIELD', 'conditions[0].or[1].field');
    // A secret is not filterable inside a group either.
    await refused([{ and: [{ field: 'secret', op: 'eq', value: 'x' }] }], 'BAD_QUERY', 'conditions[0].and[0].field');
    await refused([{ or: [{ field: 'title', op: 'eq', value: 'a\u0000b' }] }], 'BAD_QUERY', 'conditions[0].or[0].value');
    await refused([{ or: [{ field: 'price', op: 'startsWith', value: '1' }] }], 'BAD_QUERY', 'conditions[0].or[0].op');
    await refused([{ or: [{ field: 'inPrint', op: 'between', value: [false, true] }] }], 'BAD_QUERY', 'conditions[0].or[0].op');
    await refused([{ or: [{ field: 'title', op: 'notIn', value: [] }] }], 'BAD_QUERY', 'conditions[0].or[0].value');
    await refused([{ or: [{ field: 'title', op: 'startsWith', value: 'x'.repeat(201) }] }], 'BAD_QUERY', 'conditions[0].or[0].value');
    await refused([{ or: [{ field: 'id', op: 'in', value: [1, 2 ** 40] }] }], 'BAD_QUERY', 'conditions[0].or[0].value[1]');
    await refused([{ or: [{ field: 'genre', op: 'eq', value: 'poem' }] }], 'BAD_QUERY', 'conditions[0].or[0].value');
    await refused([{ or: [5] }], 'BAD_QUERY', 'conditions[0].or[0]');
  });

  it('bounds the depth of groups and the entries of the whole tree', async () => {
    const leaf = { field: 'title', op: 'notNull' };
    const nest = (levels: number): unknown => (levels === 0 ? leaf : { or: [nest(levels - 1)] });
    expect((await table([nest(4)])).status).to.equal(200);
    await refused([nest(5)], 'BAD_QUERY', 'conditions[0].or[0].or[0].or[0].or[0].or');
    // 50 entries in all (limits.maxConditions), the group counted: 49 members pass, 50 do not.
    expect((await table([{ or: Array.from({ length: 49 }, () => leaf) }])).status).to.equal(200);
    await refused([{ or: Array.from({ length: 50 }, () => leaf) }], 'BAD_QUERY', 'conditions[0].or[49]');
    await refused([leaf, { and: [leaf, { or: Array.from({ length: 48 }, () => leaf) }] }], 'BAD_QUERY', 'conditions[1].and[1].or[46]');
    // A deep tree of single members is refused at its depth, long before its size matters.
    const res = await table([nest(500)]);
    expect(res.status).to.equal(400);
  });

  it('never widens row visibility: an or group of the user stays inside the owner-only rows', async () => {
    const notes = async (conditions: unknown) => {
      const res = await f.agent.post(`${api}/data/table/Note`).set('token', bob).send({ conditions, size: 50 });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body as { rows: Array<{ subject: string; ownerId: number }>; total: number };
    };
    for (const conditions of [
      [{ or: [{ field: 'id', op: 'ne', value: 0 }] }],
      [{ or: [{ field: 'ownerId', op: 'eq', value: f.users.alice.id }, { field: 'id', op: 'notNull' }] }],
      [{ or: [{ field: 'ownerId', op: 'notNull' }, { and: [{ field: 'subject', op: 'like', value: 'alice' }] }] }],
      [{ and: [{ or: [{ field: 'ownerId', op: 'notIn', value: [f.users.bob.id] }, { field: 'ownerId', op: 'isNull' }] }] }],
    ]) {
      const page = await notes(conditions);
      expect(page.rows.every((r) => r.ownerId === f.users.bob.id), JSON.stringify(conditions)).to.equal(true);
      expect(page.total).to.equal(page.rows.length);
    }
    expect((await notes([{ or: [{ field: 'id', op: 'ne', value: 0 }] }])).total).to.equal(2);
    expect((await notes([{ or: [{ field: 'ownerId', op: 'eq', value: f.users.alice.id }] }])).total).to.equal(0);
  });

  it('pages by cursor and counts with groups', async () => {
    const conditions = [{ or: [{ field: 'genre', op: 'eq', value: 'novel' }, { field: 'price', op: 'isNull' }] }];
    const seen: string[] = [];
    let body: Record<string, unknown> = { conditions, size: 2, sort: [{ field: 'title', order: 'asc' }] };
    for (let i = 0; i < 5; i++) {
      const res = await f.agent.post(`${api}/data/table/Book`).set('token', admin).send(body);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.total).to.equal(4);
      seen.push(...(res.body.rows as Array<{ title: string }>).map((r) => r.title));
      if (!res.body.cursors?.next) break;
      body = { conditions, size: 2, sort: [{ field: 'title', order: 'asc' }], after: res.body.cursors.next };
    }
    expect([...seen].sort()).to.deep.equal(['Dubliners', 'Dune', 'Emma', 'dune messiah']);
    expect(seen).to.have.length(4);
  });

  it('exports with groups (the export parses conditions the same way)', async () => {
    const conditions = JSON.stringify([{ or: [{ field: 'title', op: 'startsWith', value: 'E' }, { field: 'price', op: 'gt', value: 10 }] }]);
    const res = await f.agent.get(`${api}/data/export/Book`).query({ conditions }).set('token', admin);
    expect(res.status, res.text).to.equal(200);
    const lines = res.text.trim().split(/\r?\n/).slice(1);
    expect(lines.map((l) => l.split(',')[0]).sort()).to.deep.equal(['Dune', 'Emma', 'Essays 100%']);
    const bad = await f.agent.get(`${api}/data/export/Book`).query({ conditions: JSON.stringify([{ or: [] }]) }).set('token', admin);
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details[0].path).to.equal('conditions[0].or');
  });

  it('reuses a compiled page per shape, groups part of the shape', async () => {
    const reader = new RowReader({ store: f.store, registry: f.registry, limits: DEFAULT_QUERY_LIMITS });
    const actor = { user: f.users.admin, ip: null, source: 'http' as const };
    const a = { field: 'genre', op: 'eq', value: 'essay' };
    const b = { field: 'price', op: 'lt', value: 5 };
    const page = async (conditions: unknown) => (await reader.page(Book, actor, { conditions, size: 50 })).rows.map((r) => r.title).sort();
    expect(await page([{ or: [a, b] }])).to.deep.equal(['Dubliners', 'Emma', 'Essays 100%', 'Walden']);
    const plans = reader.planCount;
    // The same shape with other values: no new plan, and the new values' rows.
    expect(await page([{ or: [{ ...a, value: 'novel' }, { ...b, value: 4 }] }])).to.deep.equal(['Dune', 'Walden', 'dune messiah', 'Emma'].sort());
    expect(reader.planCount).to.equal(plans);
    // The same conditions grouped otherwise are another shape: `and` here finds nothing.
    expect(await page([{ and: [a, b] }])).to.deep.equal([]);
    expect(reader.planCount).to.equal(plans + 1);
    expect(await page([{ or: [a, b] }])).to.deep.equal(['Dubliners', 'Emma', 'Essays 100%', 'Walden']);
    expect(await page([a, b])).to.deep.equal([]);
    expect(reader.planCount).to.equal(plans + 2);
  });
});

describe('conditionsKey with groups', () => {
  it('tells apart the same conditions grouped otherwise (cached counts and page anchors are kept under it)', () => {
    const a = { field: 'genre', op: 'eq' as const, value: 'essay' };
    const b = { field: 'price', op: 'lt' as const, value: 5 };
    const keys = [conditionsKey([{ or: [a, b] }]), conditionsKey([{ and: [a, b] }]), conditionsKey([a, b]), conditionsKey([{ or: [a] }, b]), conditionsKey([{ or: [{ or: [a, b] }] }])];
    expect(new Set(keys).size).to.equal(keys.length);
    expect(conditionsKey([{ or: [a, b] }])).to.equal(conditionsKey([{ or: [{ ...a }, { ...b }] }]));
  });
});
