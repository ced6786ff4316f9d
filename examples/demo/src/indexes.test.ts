import { expect } from 'chai';
import { createStore } from '@fw/store';
import { describeEachSql } from '@fw/test-utils';
import { demoModels } from './models.js';

describeEachSql("The demo's declared indexes (issue 21 §3)", (db) => {
  it('are created with its tables, under their declared names, and a second start creates nothing', async function () {
    const store = createStore(db().url);
    try {
      await store.migrate.latest();
      await store.createModelTables(demoModels);
      const declared = demoModels.flatMap((m) => m.indexes.map((i) => ({ table: m.table, name: i.name })));
      expect(declared.map((d) => d.name)).to.include.members(['fw_ix_demo_book_isbn', 'fw_ix_demo_book_genre_published', 'fw_ix_demo_task_ownerid_id']);
      for (const { table, name } of declared) {
        const sql: Record<string, string> = {
          sqlite: 'select name from pragma_index_list(?)',
          postgres: 'select indexname as name from pg_indexes where tablename = ?',
          mysql: 'select index_name as name from information_schema.statistics where table_schema = database() and table_name = ?',
        };
        const result = await store.knex.raw(sql[store.dialect]!, [table]);
        const rows: Array<{ name: string }> = store.dialect === 'postgres' ? result.rows : store.dialect === 'mysql' ? result[0] : result;
        expect(
          rows.map((r) => r.name),
          table,
        ).to.include(name);
      }
      expect((await store.planModelTables(demoModels)).safe).to.deep.equal([]);
    } finally {
      await store.destroy();
    }
  });
});
