import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { setupData, type DataFixture } from '../test-setup.js';

const api = '/fw-api';

// Issue 23 (red-team leftovers §1): the trash page takes the table query's conditions, groups
// and every operator included, and must pick the same rows the table query picks. The same books
// are asked for in the table, then deleted and asked for in the trash: the ids must agree.
describeEachSql('trash page: the table query’s conditions, judged on trashed rows', (db, spec) => {
  let f: DataFixture;
  let admin: string;
  const ids: Record<string, number> = {};

  before(async () => {
    f = await setupData(db().url);
    admin = await f.token('admin');
    const books = [
      { title: 'Dune', genre: 'novel', price: 12, published: '1965-08-01', inPrint: true },
      { title: 'Emma', genre: 'novel', price: 4, inPrint: true },
      { title: 'Essays 100%', genre: 'essay', price: 9, published: '2001-01-01', inPrint: false },
      { title: 'Dubliners', genre: 'essay', published: '1914-06-15', inPrint: true },
      { title: 'dune messiah', genre: 'novel', price: 7, published: '1969-10-15', inPrint: false },
      { title: 'Walden', price: 3, published: '1854-08-09', inPrint: true },
      { title: '三体', genre: 'novel', price: 5, published: '2008-01-01', inPrint: true },
    ];
    for (const book of books) {
      const res = await f.agent.post(`${api}/data/modify/Book`).set('token', admin).send(book);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      ids[book.title] = Number(res.body.id);
    }
  });
  after(() => f?.destroy());

  const leaves: unknown[] = [
    { field: 'title', op: 'eq', value: 'Dune' },
    { field: 'title', op: 'ne', value: 'Dune' },
    { field: 'title', op: 'in', value: ['Dune', 'Emma'] },
    { field: 'title', op: 'notIn', value: ['Dune', 'Emma'] },
    { field: 'title', op: 'like', value: 'DUNE' },
    { field: 'title', op: 'like', value: '0%' },
    { field: 'title', op: 'like', value: '体' },
    { field: 'title', op: 'startsWith', value: 'du' },
    { field: 'title', op: 'startsWith', value: 'DUNE M' },
    { field: 'title', op: 'startsWith', value: '_' },
    { field: 'title', op: 'startsWith', value: 'Essays 100%' },
    { field: 'title', op: 'startsWith', value: 'une' },
    { field: 'title', op: 'startsWith', value: '三' },
    { field: 'title', op: 'isNull' },
    { field: 'price', op: 'eq', value: 12 },
    { field: 'price', op: 'ne', value: 12 },
    { field: 'price', op: 'in', value: [4, '7'] },
    { field: 'price', op: 'notIn', value: [4, 7] },
    { field: 'price', op: 'between', value: [4, 9] },
    { field: 'price', op: 'gt', value: 5 },
    { field: 'price', op: 'isNull' },
    { field: 'published', op: 'between', value: ['1900-01-01', '1970-01-01'] },
    { field: 'published', op: 'notIn', value: ['1965-08-01'] },
    { field: 'published', op: 'lt', value: '1965-08-01' },
    { field: 'published', op: 'isNull' },
    { field: 'inPrint', op: 'eq', value: false },
    { field: 'inPrint', op: 'notIn', value: [true] },
    { field: 'inPrint', op: 'in', value: ['false'] },
    { field: 'genre', op: 'notIn', value: ['novel'] },
    { field: 'genre', op: 'in', value: ['essay'] },
    { field: 'genre', op: 'startsWith', value: 'ESS' },
    { field: 'genre', op: 'notNull' },
  ];
  const cheapInPrint = { and: [{ field: 'price', op: 'lt', value: 5 }, { field: 'inPrint', value: true }] };
  const trees: unknown[][] = [
    ...leaves.map((leaf) => [leaf]),
    ...leaves.map((leaf) => [{ or: [leaf] }]),
    ...leaves.map((leaf) => [{ and: [{ or: [leaf, { field: 'price', op: 'isNull' }] }] }]),
    [{ or: [{ field: 'genre', op: 'eq', value: 'essay' }, cheapInPrint] }],
    [{ or: [{ field: 'genre', op: 'eq', value: 'essay' }, cheapInPrint] }, { field: 'published', op: 'notNull' }],
    [{ or: [{ and: [{ or: [{ and: [{ field: 'title', op: 'eq', value: 'Dune' }] }] }] }, { field: 'title', op: 'eq', value: 'Emma' }] }],
    [{ or: [{ field: 'title', op: 'startsWith', value: 'E' }, { field: 'price', op: 'gt', value: 10 }] }],
    [{ and: [{ field: 'genre', op: 'notIn', value: ['essay'] }, { or: [{ field: 'title', op: 'like', value: 'un' }, { field: 'price', op: 'lte', value: 4 }] }] }],
    [{ or: [{ field: 'genre', op: 'isNull' }, { and: [{ field: 'inPrint', value: false }, { field: 'title', op: 'notIn', value: ['Essays 100%'] }] }] }],
  ];

  // Conditions whose answer depends on the database: judged exactly where the dialect is known to
  // compare alike (the list), elsewhere a 400 `BAD_QUERY` is allowed — but never other rows.
  const dialectDependent: Array<[unknown, string[]]> = [
    [{ field: 'title', op: 'eq', value: 'dune' }, ['sqlite', 'postgres']],
    [{ field: 'title', op: 'in', value: ['dune', 'EMMA'] }, ['sqlite', 'postgres']],
    [{ field: 'title', op: 'ne', value: 'DUNE' }, ['sqlite', 'postgres']],
    [{ field: 'title', op: 'notIn', value: ['dune', 'EMMA'] }, ['sqlite', 'postgres']],
    [{ field: 'title', op: 'startsWith', value: 'é' }, ['sqlite']],
    [{ field: 'title', op: 'startsWith', value: 'E' }, ['sqlite', 'postgres']],
    [{ field: 'title', op: 'like', value: 'mile' }, ['sqlite', 'postgres', 'mysql']],
    [{ field: 'title', op: 'like', value: 'ÉM' }, ['sqlite']],
    [{ field: 'title', op: 'gt', value: 'M' }, ['sqlite']],
    [{ field: 'title', op: 'between', value: ['D', 'e'] }, ['sqlite']],
    [{ or: [{ field: 'title', op: 'lte', value: 'Dz' }, { field: 'price', op: 'gt', value: 10 }] }, ['sqlite']],
  ];

  it('never picks other rows than the table query where the answer depends on the database; exact where the dialect compares alike', async () => {
    const idsOf = (body: { rows: Array<{ id: number }> }) => body.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
    const books = [{ title: 'Dune' }, { title: 'dune messiah' }, { title: 'Emma' }, { title: 'Émile', price: 6 }, { title: '三体' }, { title: 'Walden', price: 12 }];
    const made: number[] = [];
    for (const book of books) made.push(Number((await f.agent.post(`${api}/data/modify/Book`).set('token', admin).send(book).expect(200)).body.id));
    // Only these rows: the other test's books stay out of both answers.
    const ask = (path: string, conditions: unknown) => f.agent.post(`${api}${path}`).set('token', admin).send({ conditions: [conditions, { field: 'id', op: 'in', value: made }], size: 50 });
    const fromTable: number[][] = [];
    for (const [conditions] of dialectDependent) fromTable.push(idsOf((await ask('/data/table/Book', conditions).expect(200)).body));
    expect(fromTable.some((found) => found.length > 0)).to.equal(true);
    await f.agent.post(`${api}/data/modify/Book/delete`).set('token', admin).send({ ids: made }).expect(200);
    for (const [i, [conditions, exactOn]] of dialectDependent.entries()) {
      const res = await ask('/data/trash/Book', conditions);
      const label = `${JSON.stringify(conditions)}: ${JSON.stringify(res.body)}`;
      if (exactOn.includes(spec.dialect)) expect(res.status, label).to.equal(200);
      if (res.status === 400) expect(res.body.error.code, label).to.equal('BAD_QUERY');
      else expect(idsOf(res.body), label).to.deep.equal(fromTable[i]);
    }
  });

  it('picks the same rows from the trash as the table query picks from the table, for every operator and nesting', async () => {
    const asked = async (path: string, conditions: unknown): Promise<number[]> => {
      const res = await f.agent.post(`${api}${path}`).set('token', admin).send({ conditions: [...(conditions as unknown[]), { field: 'id', op: 'in', value: Object.values(ids) }], size: 50 });
      expect(res.status, `${path} ${JSON.stringify(conditions)}: ${JSON.stringify(res.body)}`).to.equal(200);
      expect(res.body.total).to.equal(res.body.rows.length);
      return (res.body.rows as Array<{ id: number }>).map((r) => Number(r.id)).sort((a, b) => a - b);
    };
    const fromTable: number[][] = [];
    for (const conditions of trees) fromTable.push(await asked('/data/table/Book', conditions));
    // Every tree found something and missed something somewhere: the comparison has teeth.
    expect(fromTable.filter((found) => found.length > 0 && found.length < Object.keys(ids).length).length).to.be.greaterThan(trees.length / 2);
    const removed = await f.agent.post(`${api}/data/modify/Book/delete`).set('token', admin).send({ ids: Object.values(ids) });
    expect(removed.status, JSON.stringify(removed.body)).to.equal(200);
    expect(await asked('/data/table/Book', [])).to.deep.equal([]);
    for (const [i, conditions] of trees.entries()) {
      expect(await asked('/data/trash/Book', conditions), JSON.stringify(conditions)).to.deep.equal(fromTable[i]);
    }
  });
});
