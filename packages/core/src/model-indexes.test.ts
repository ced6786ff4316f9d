import { FwDefinitionError, FwLoginLogModel, FwOperateLogModel, MAX_INDEX_NAME_LENGTH, defineModel, indexName, type FieldDefinitionInput } from '@fw/core';
import { thrown } from '@fw/test-utils';
import { expect } from 'chai';

const FIELDS: Record<string, FieldDefinitionInput> = {
  title: {},
  code: {},
  owner: { edit: { type: 'HIDDEN' } },
  status: { edit: { type: 'CHOICE', choices: [{ value: 'new' }, { value: 'done' }] } },
  score: { edit: { type: 'NUMBER' } },
  createdAt: { column: 'created_at', edit: { type: 'DATETIME' } },
  body: { edit: { type: 'TEXTAREA' } },
  tags: { edit: { type: 'TAGS' } },
  secret: { edit: { type: 'PASSWORD' } },
  files: { edit: { type: 'ATTACHMENT' } },
  labels: { edit: { type: 'COLLECTION', collection: { model: 'Label', joinTable: 'ticket_label', ownKey: 'ticket_id', foreignKey: 'label_id' } } },
};

/** The definition error a Ticket model with these options throws. */
function refusal(fields: Record<string, FieldDefinitionInput>, indexes?: unknown): FwDefinitionError {
  return thrown(() => defineModel({ name: 'Ticket', fields: { ...FIELDS, ...fields }, ...(indexes === undefined ? {} : { indexes: indexes as string[][] }) }), FwDefinitionError);
}

describe('defineModel({ fields: { f: { index } }, indexes })', function () {
  it('normalizes field indexes then composite ones, with their columns and deterministic names', function () {
    const model = defineModel({
      name: 'Ticket',
      fields: { ...FIELDS, status: { ...FIELDS.status, index: true }, score: { ...FIELDS.score, index: false } },
      indexes: [['status', 'createdAt', 'id']],
    });
    expect(model.indexes).to.deep.equal([
      { name: 'fw_ix_ticket_status', fields: ['status'], columns: ['status'] },
      { name: 'fw_ix_ticket_status_created_at_id', fields: ['status', 'createdAt', 'id'], columns: ['status', 'created_at', 'id'] },
    ]);
    expect(Object.isFrozen(model.indexes)).to.equal(true);
    expect(Object.isFrozen(model.indexes[0])).to.equal(true);
  });

  it('has no indexes unless some are declared', function () {
    expect(defineModel({ name: 'Ticket', fields: FIELDS }).indexes).to.deep.equal([]);
  });

  it('names the index after the table without its schema, and shortens a long name with a hash', function () {
    expect(defineModel({ name: 'Ticket', table: 'app.ticket', fields: { status: { index: true } } }).indexes[0]!.name).to.equal('fw_ix_ticket_status');
    const long = indexName('a_table_with_a_long_name', ['first_rather_long_column', 'second_rather_long_column']);
    expect(long).to.have.length(MAX_INDEX_NAME_LENGTH);
    const full = 'fw_ix_a_table_with_a_long_name_first_rather_long_column_second_rather_long_column';
    expect(long.slice(0, 54)).to.equal(full.slice(0, 54));
    expect(long).to.match(/^fw_ix_\w{48}_[0-9a-f]{8}$/);
    expect(indexName('a_table_with_a_long_name', ['first_rather_long_column', 'second_rather_long_column'])).to.equal(long);
    expect(indexName('a_table_with_a_long_name', ['first_rather_long_column', 'second_rather_long_columns'])).not.to.equal(long);
  });

  it('refuses an index option that is not a boolean', function () {
    expect(refusal({ status: { index: 'yes' as unknown as boolean } }).key).to.equal('Ticket.fields.status.index');
  });

  it('refuses long text, secrets, files and collections as index keys, naming the path', function () {
    for (const field of ['body', 'tags', 'secret', 'files', 'labels']) {
      const error = refusal({ [field]: { ...FIELDS[field], index: true } });
      expect(error.key, field).to.equal(`Ticket.fields.${field}.index`);
      expect(error.message).to.contain('cannot be indexed');
    }
    expect(refusal({}, [['status', 'body']]).key).to.equal('Ticket.indexes[0][1]');
  });

  it('refuses an index of the primary key alone, which is indexed already', function () {
    expect(refusal({ id: { edit: { type: 'HIDDEN', integer: true }, index: true } }).key).to.equal('Ticket.fields.id.index');
    expect(refusal({}, [['id']]).key).to.equal('Ticket.indexes[0]');
  });

  it('refuses malformed lists: not an array, empty, unknown fields, a field twice', function () {
    expect(refusal({}, 'status').key).to.equal('Ticket.indexes');
    expect(refusal({}, ['status']).key).to.equal('Ticket.indexes[0]');
    expect(refusal({}, [[]]).key).to.equal('Ticket.indexes[0]');
    expect(refusal({}, [['status'], ['status', 'nope']]).key).to.equal('Ticket.indexes[1][1]');
    expect(refusal({}, [['status', 'score', 'status']]).key).to.equal('Ticket.indexes[0][2]');
  });

  it('refuses the same index declared twice, on a field and in the list', function () {
    const error = refusal({ status: { ...FIELDS.status, index: true } }, [['status']]);
    expect(error.key).to.equal('Ticket.indexes[0]');
    expect(error.message).to.contain('Ticket.fields.status.index');
  });

  it('refuses more than 4 columns, or more than 3 text columns (the key size of MySQL and SQL Server)', function () {
    expect(refusal({}, [['status', 'score', 'createdAt', 'title', 'id']]).message).to.contain('at most 4 fields');
    expect(refusal({}, [['status', 'title', 'code', 'owner']]).message).to.contain('at most 3 text fields');
    expect(defineModel({ name: 'Ticket', fields: FIELDS, indexes: [['status', 'title', 'code', 'createdAt']] }).indexes).to.have.length(1);
  });

  it("declares on the built-in logs the indexes their pages read: newest first, by user, by account, by model, by batch, a row's history", function () {
    expect(FwOperateLogModel.indexes.map((i) => i.columns)).to.deep.equal([
      ['created_at', 'id'],
      ['user_id', 'created_at'],
      ['model', 'created_at'],
      ['batch'],
      ['model', 'target_id', 'id'],
    ]);
    expect(FwLoginLogModel.indexes.map((i) => i.columns)).to.deep.equal([
      ['login_time', 'id'],
      ['user_id', 'login_time', 'id'],
      ['account', 'login_time', 'id'],
      ['success', 'login_time'],
    ]);
    // The pages' default order walks the first index backwards.
    expect(FwOperateLogModel.orderBy.map((o) => FwOperateLogModel.fields[o.field]!.column)).to.deep.equal(FwOperateLogModel.indexes[0]!.columns);
    expect(FwLoginLogModel.orderBy.map((o) => FwLoginLogModel.fields[o.field]!.column)).to.deep.equal(FwLoginLogModel.indexes[0]!.columns);
  });
});
