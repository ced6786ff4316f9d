import { expect } from 'chai';
import { describeEachSql } from '@fw/test-utils';
import { classifyDbError, violationConcerns, type DbViolation } from './db-errors.js';
import { createStore } from './store.js';
import type { FwStore } from './store.js';

/** The violation a statement fails with (the test fails when it succeeds or fails otherwise). */
async function violationOf(statement: () => PromiseLike<unknown>): Promise<DbViolation> {
  let caught: unknown;
  try {
    await statement();
  } catch (error) {
    caught = error;
  }
  if (caught === undefined) throw new Error('the statement succeeded');
  const violation = classifyDbError(caught);
  if (!violation) throw new Error(`not classified: ${String(caught)}`);
  return violation;
}

describeEachSql('classifyDbError(error)', (db, spec) => {
  let store: FwStore;
  before(async () => {
    store = createStore(db().url);
    await store.migrate.latest();
    await store.knex.schema.createTable('t_parent', (t) => {
      t.increments('id');
    });
    await store.knex.schema.createTable('t_child', (t) => {
      t.increments('id');
      t.integer('parent_id').unsigned().references('id').inTable('t_parent');
    });
  });
  after(() => store?.destroy());

  it('reads a unique violation with its column (and value where the driver tells)', async () => {
    await store.knex('fw_role').insert({ code: 'dup', name: 'Dup' });
    const v = await violationOf(() => store.knex('fw_role').insert({ code: 'dup', name: 'Again' }));
    expect(v.kind).to.equal('unique');
    expect(violationConcerns(v, 'fw_role', 'code')).to.equal(true);
    expect(violationConcerns(v, 'fw_role', 'name')).to.equal(false);
    expect(violationConcerns(v, 'fw_user', 'code')).to.equal(false);
    if (spec.dialect !== 'sqlite') expect(v.value).to.equal('dup');
  });

  it('reads a not-null violation with its column', async () => {
    const v = await violationOf(() => store.knex('fw_user').insert({ account: 'n', is_admin: null }));
    expect(v.kind).to.equal('notNull');
    expect(violationConcerns(v, 'fw_user', 'is_admin')).to.equal(true);
  });

  it('reads a missing reference with the referencing column', async () => {
    const user = await store.users.create({ account: 'linked' });
    const v = await violationOf(() => store.knex('fw_user_role').insert({ user_id: user.id, role_id: 999 }));
    expect(v.kind).to.equal('missingReference');
    // SQLite says only that a foreign key failed.
    if (spec.dialect !== 'sqlite') expect(violationConcerns(v, 'fw_user_role', 'role_id')).to.equal(true);
  });

  it('reads a row still referenced by another', async () => {
    const [parent] = await store.knex('t_parent').insert({}, ['id']);
    const id = typeof parent === 'object' ? (parent as { id: number }).id : parent;
    await store.knex('t_child').insert({ parent_id: id });
    const v = await violationOf(() => store.knex('t_parent').where('id', id).delete());
    // SQLite cannot tell a missing reference from a referenced row.
    expect(v.kind).to.equal(spec.dialect === 'sqlite' ? 'missingReference' : 'stillReferenced');
  });

  it('leaves errors about something else alone', async () => {
    let caught: unknown;
    try {
      await store.knex.raw('select * from no_such_table');
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(Error);
    expect(classifyDbError(caught)).to.equal(undefined);
    expect(classifyDbError(new Error('boom'))).to.equal(undefined);
    expect(classifyDbError(null)).to.equal(undefined);
  });
});

describe('classifyDbError(error) on driver error shapes', () => {
  it('reads SQL Server errors by number (compiled only: no SQL Server runs here)', () => {
    const unique = classifyDbError(
      Object.assign(
        new Error("Violation of UNIQUE KEY constraint 'fw_user_account_unique'. Cannot insert duplicate key in object 'dbo.fw_user'. The duplicate key value is (alice)."),
        { number: 2627 },
      ),
    );
    expect(unique).to.deep.include({ kind: 'unique', table: 'fw_user', constraint: 'fw_user_account_unique', value: 'alice' });
    expect(violationConcerns(unique!, 'fw_user', 'account')).to.equal(true);
    const index = classifyDbError({
      originalError: Object.assign(new Error("Cannot insert duplicate key row in object 'dbo.fw_role' with unique index 'fw_role_code_unique'. The duplicate key value is (x)."), {
        number: 2601,
      }),
    });
    expect(violationConcerns(index!, 'fw_role', 'code')).to.equal(true);
    const nulls = classifyDbError(
      Object.assign(new Error("Cannot insert the value NULL into column 'is_admin', table 'fw.dbo.fw_user'; column does not allow nulls. INSERT fails."), { number: 515 }),
    );
    expect(nulls).to.deep.include({ kind: 'notNull', table: 'fw_user', columns: ['is_admin'] });
    const fk = classifyDbError(
      Object.assign(
        new Error(
          'The INSERT statement conflicted with the FOREIGN KEY constraint "fw_user_role_role_id_foreign". The conflict occurred in database "fw", table "dbo.fw_role", column \'id\'.',
        ),
        { number: 547 },
      ),
    );
    expect(fk?.kind).to.equal('missingReference');
    expect(violationConcerns(fk!, 'fw_user_role', 'role_id')).to.equal(true);
    const referenced = classifyDbError(Object.assign(new Error('The DELETE statement conflicted with the REFERENCE constraint "t_child_parent_id_foreign".'), { number: 547 }));
    expect(referenced?.kind).to.equal('stillReferenced');
  });

  it('reads MySQL 8 key names that carry the table', () => {
    const v = classifyDbError({ errno: 1062, sqlState: '23000', code: 'ER_DUP_ENTRY', sqlMessage: "Duplicate entry 'a' for key 'fw_menu.fw_menu_code_unique'" });
    expect(v).to.deep.include({ kind: 'unique', table: 'fw_menu', constraint: 'fw_menu_code_unique', value: 'a' });
    expect(violationConcerns(v!, 'fw_menu', 'code')).to.equal(true);
  });
});
