import { expect } from 'chai';
import { FwError, createRegistry, defineModel } from '@fw/core';
import { DataService } from '@fw/data';
import { createStore, type FwStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { FwAiToolbox } from './toolbox.js';

describe('FwAiToolbox', () => {
  const Item = defineModel({ name: 'Item', table: 'tb_item', fields: { title: {} } });
  const store = createStore('sqlite::memory:');
  after(() => store.destroy());

  it('follows the data API page limits when they are below the AI cap', async () => {
    await store.migrate.latest();
    await store.createModelTables([Item]);
    await store.knex.batchInsert(
      'tb_item',
      Array.from({ length: 30 }, (_, i) => ({ title: `t${i}` })),
      30,
    );
    const data = new DataService({ store, registry: createRegistry([Item]), limits: { defaultSize: 5, maxSize: 10 } });
    const toolbox = new FwAiToolbox(data);
    const admin = { user: { id: 1, account: 'root', isAdmin: true }, ip: null };
    const plain = (await toolbox.call('fwDataQuery', { model: 'Item' }, admin)) as { rows: unknown[]; size: number };
    expect(plain.rows).to.have.length(5);
    const asked = (await toolbox.call('fwDataQuery', { model: 'Item', filter: { size: 100 } }, admin)) as { rows: unknown[]; size: number };
    expect(asked.rows).to.have.length(10);
  });

  it('refuses an unknown tool', async () => {
    const toolbox = new FwAiToolbox(new DataService({ store, registry: createRegistry([Item]) }));
    let caught: unknown;
    try {
      await toolbox.call('dropEverything', {}, { user: { id: 1, account: 'root', isAdmin: true }, ip: null });
    } catch (error) {
      caught = error;
    }
    expect((caught as Error).message).to.equal('Unknown tool "dropEverything"');
  });
});

describeEachSql('FwAiToolbox: crafted arguments are refused, nothing written', (db) => {
  const Item = defineModel({ name: 'Item', table: 'tb_item', fields: { title: {}, qty: { edit: { type: 'NUMBER', integer: true } } } });
  const admin = { user: { id: 1, account: 'root', isAdmin: true }, ip: null };
  let store: FwStore;
  let toolbox: FwAiToolbox;
  let itemId: number;

  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    await store.createModelTables([Item]);
    toolbox = new FwAiToolbox(new DataService({ store, registry: createRegistry([Item]) }));
    itemId = ((await toolbox.call('insertFwData', { model: 'Item', data: { title: 'kept', qty: 1 } }, admin)) as { id: number }).id;
  });
  after(() => store?.destroy());

  /** The FwError a tool call fails with. */
  const refusal = async (tool: string, args: unknown): Promise<FwError> => {
    try {
      await toolbox.call(tool, args, admin);
    } catch (error) {
      if (error instanceof FwError) return error;
      throw error;
    }
    throw new Error(`${tool} succeeded with ${JSON.stringify(args)}`);
  };

  it('answers UNKNOWN_FIELD for data keys named like Object.prototype members', async () => {
    for (const key of ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf']) {
      const data = JSON.parse(`{${JSON.stringify(key)}:"v","title":"changed"}`) as Record<string, unknown>;
      for (const [tool, args] of [
        ['insertFwData', { model: 'Item', data }],
        ['updateFwData', { model: 'Item', id: itemId, data }],
        ['fwDataQuery', { model: 'Item', filter: { conditions: [{ field: key, op: 'eq', value: 'v' }] } }],
      ] as const) {
        const error = await refusal(tool, args);
        expect(error.code, `${tool} ${key}: ${error.message}`).to.equal('UNKNOWN_FIELD');
        expect(error.status).to.equal(400);
      }
    }
    expect(await store.knex('tb_item').select('title')).to.deep.equal([{ title: 'kept' }]);
  });

  it('answers 422 naming the field for a NUL character in a value, 400 in a condition', async () => {
    for (const [tool, args] of [
      ['insertFwData', { model: 'Item', data: { title: 'a\u0000b' } }],
      ['updateFwData', { model: 'Item', id: itemId, data: { title: 'a\u0000b' } }],
    ] as const) {
      const error = await refusal(tool, args);
      expect(error.status, `${tool}: ${error.message}`).to.equal(422);
      expect(error.details?.map((d) => d.path)).to.deep.equal(['title']);
    }
    const query = await refusal('fwDataQuery', { model: 'Item', filter: { conditions: [{ field: 'title', op: 'like', value: '\u0000' }] } });
    expect([query.status, query.code]).to.deep.equal([400, 'BAD_QUERY']);
    expect(await store.knex('tb_item').select('title')).to.deep.equal([{ title: 'kept' }]);
  });

  it('answers 404 for an id beyond the key column, 400 for such a condition, 422 for such a value', async () => {
    for (const [tool, args] of [
      ['findFwDataByPk', { model: 'Item', id: '99999999999' }],
      ['updateFwData', { model: 'Item', id: 99_999_999_999, data: { title: 'x' } }],
      ['deleteFwData', { model: 'Item', ids: [itemId, 99_999_999_999] }],
    ] as const) {
      const error = await refusal(tool, args);
      expect([error.status, error.code], `${tool}: ${error.message}`).to.deep.equal([404, 'ROW_NOT_FOUND']);
    }
    const query = await refusal('fwDataQuery', { model: 'Item', filter: { conditions: [{ field: 'qty', op: 'gt', value: 3_000_000_000 }] } });
    expect([query.status, query.code, query.details?.[0]?.path]).to.deep.equal([400, 'BAD_QUERY', 'conditions[0].value']);
    const value = await refusal('insertFwData', { model: 'Item', data: { title: 'big', qty: 3_000_000_000 } });
    expect([value.status, value.details?.map((d) => d.path)]).to.deep.equal([422, ['qty']]);
    expect(await store.knex('tb_item').select('title')).to.deep.equal([{ title: 'kept' }]);
  });

  it('filters with condition groups through the table query parser (issue 23 §1)', async () => {
    await toolbox.call('insertFwData', { model: 'Item', data: { title: 'other', qty: 9 } }, admin);
    const filter = {
      conditions: [
        {
          or: [
            { field: 'title', op: 'startsWith', value: 'KE' },
            {
              and: [
                { field: 'qty', op: 'notIn', value: [1, 2] },
                { field: 'title', op: 'eq', value: 'nope' },
              ],
            },
          ],
        },
      ],
    };
    const page = (await toolbox.call('fwDataQuery', { model: 'Item', filter }, admin)) as { rows: Array<{ title: string }> };
    expect(page.rows.map((r) => r.title)).to.deep.equal(['kept']);
    // The tool's schema holds groups to one key; the parser names a bad member by its place.
    expect((await refusal('fwDataQuery', { model: 'Item', filter: { conditions: [{ or: [], and: [] }] } })).code).to.equal('BAD_REQUEST');
    const deep = await refusal('fwDataQuery', { model: 'Item', filter: { conditions: [{ or: [{ field: 'qty', op: 'in', value: ['x'] }] }] } });
    expect([deep.code, deep.details?.[0]?.path]).to.deep.equal(['BAD_QUERY', 'conditions[0].or[0].value[0]']);
    await store.knex('tb_item').where('title', 'other').delete();
  });
});
