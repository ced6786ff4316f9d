import { expect } from 'chai';
import { EditType, defineModel, fieldCapabilities, type FieldDefinitionInput, type FieldEdit, type ModelDefinitionInput } from '@fw/core';

type Capabilities = ReturnType<typeof fieldCapabilities>;

function setup(edit: FieldEdit, extra: Omit<FieldDefinitionInput, 'edit'> = {}, power: ModelDefinitionInput['power'] = {}) {
  const model = defineModel({
    name: 'Thing',
    ...(power ? { power } : {}),
    fields: {
      title: {},
      tags: { edit: { type: 'TAGS' } },
      probe: { edit, ...extra },
    },
  });
  return { model, caps: model.fields.probe!.capabilities };
}

const only = (edit: FieldEdit): FieldEdit => edit;

/** Every edit type with the edit options it needs and what the capabilities must say. */
const CASES: Array<{ edit: FieldEdit; expected: Omit<Capabilities, 'cellEdit'> & { cellEdit: boolean | string } }> = [
  {
    edit: { type: 'INPUT' },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: true, ordered: true, cellEdit: true, storedKind: 'string' },
  },
  {
    edit: { type: 'TEXTAREA' },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: true, ordered: true, cellEdit: true, storedKind: 'text' },
  },
  {
    edit: { type: 'NUMBER' },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: false, ordered: true, cellEdit: true, storedKind: 'number' },
  },
  {
    edit: { type: 'NUMBER', integer: true },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: false, ordered: true, cellEdit: true, storedKind: 'integer' },
  },
  {
    edit: { type: 'BOOLEAN' },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: false, ordered: false, cellEdit: true, storedKind: 'boolean' },
  },
  {
    edit: { type: 'CHOICE', choices: [{ value: 'a' }, { value: 'b' }] },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: true, ordered: true, cellEdit: true, storedKind: 'string' },
  },
  {
    edit: { type: 'MULTI_CHOICE', choices: [{ value: 'a' }, { value: 'b' }] },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: true, ordered: false, cellEdit: true, storedKind: 'text' },
  },
  { edit: { type: 'TAGS' }, expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: true, ordered: false, cellEdit: true, storedKind: 'text' } },
  { edit: { type: 'DATE' }, expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: false, ordered: true, cellEdit: true, storedKind: 'date' } },
  {
    edit: { type: 'DATETIME' },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: false, ordered: true, cellEdit: true, storedKind: 'datetime' },
  },
  {
    edit: { type: 'PASSWORD' },
    expected: { secret: true, queryable: false, filterable: false, sortable: false, textSearch: false, ordered: false, cellEdit: 'PASSWORD_FIELD', storedKind: 'string' },
  },
  {
    edit: { type: 'HIDDEN' },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: true, ordered: true, cellEdit: true, storedKind: 'string' },
  },
  {
    edit: { type: 'HIDDEN', integer: true },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: false, ordered: true, cellEdit: true, storedKind: 'integer' },
  },
  {
    edit: { type: 'REFERENCE_TABLE', reference: { model: 'Other' } },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: false, ordered: true, cellEdit: true, storedKind: 'integer' },
  },
  {
    edit: { type: 'REFERENCE_TREE', reference: { model: 'Other' } },
    expected: { secret: false, queryable: true, filterable: true, sortable: true, textSearch: false, ordered: true, cellEdit: true, storedKind: 'integer' },
  },
  {
    edit: { type: 'COLLECTION', collection: { model: 'Other', joinTable: 'thing_other', ownKey: 'thing_id', foreignKey: 'other_id' } },
    expected: { secret: false, queryable: false, filterable: false, sortable: false, textSearch: false, ordered: false, cellEdit: 'COLLECTION_FIELD', storedKind: undefined },
  },
  {
    edit: { type: 'ATTACHMENT' },
    expected: { secret: false, queryable: false, filterable: false, sortable: false, textSearch: false, ordered: false, cellEdit: 'FIELD_CELL_EDIT_DISABLED', storedKind: 'text' },
  },
];

function flat(caps: Capabilities) {
  return { ...caps, cellEdit: caps.cellEdit.ok ? true : caps.cellEdit.code };
}

describe('fieldCapabilities (computed by defineModel)', () => {
  it('covers every edit type', () => {
    const covered = new Set(CASES.map((c) => c.edit.type));
    expect([...covered].sort()).to.deep.equal(Object.values(EditType).sort());
  });

  for (const { edit, expected } of CASES) {
    it(`${edit.type}${edit.integer ? ' (integer)' : ''}: ${JSON.stringify(expected)}`, () => {
      const { caps } = setup(edit);
      expect(flat(caps)).to.deep.equal(expected);
    });
  }

  it('freezes the answer, the cell-edit answer included', () => {
    const { caps } = setup({ type: 'INPUT', readonly: true });
    expect(Object.isFrozen(caps)).to.equal(true);
    expect(Object.isFrozen(caps.cellEdit)).to.equal(true);
  });

  it('keeps a declared sortable: false out of the sort but in the filter', () => {
    const { caps } = setup({ type: 'INPUT' }, { views: { sortable: false } });
    expect(caps).to.include({ queryable: true, filterable: true, sortable: false });
  });

  it('never lets a secret be sorted, even when the view declares it sortable', () => {
    const { caps } = setup({ type: 'PASSWORD' }, { views: { sortable: true } });
    expect(caps).to.include({ queryable: false, sortable: false });
  });

  describe('cellEdit, in the order the update-cell route checks', () => {
    it('the model switch comes first, with the model in the reason', () => {
      const { model, caps } = setup({ type: 'PASSWORD' }, {}, { cellEdit: false });
      expect(caps.cellEdit).to.deep.equal({ ok: false, code: 'CELL_EDIT_DISABLED', reason: 'Cell editing is disabled for model Thing' });
      expect(model.capabilities.cellEdit).to.deep.equal(caps.cellEdit);
    });

    it('then the field switch', () => {
      const { model, caps } = setup({ type: 'INPUT', cellEdit: false, readonly: true });
      expect(caps.cellEdit).to.deep.equal({ ok: false, code: 'FIELD_CELL_EDIT_DISABLED', reason: 'Cell editing is disabled for field Thing.probe' });
      expect(model.capabilities.cellEdit).to.deep.equal({ ok: true });
    });

    it('then the primary key', () => {
      const model = defineModel({ name: 'Keyed', fields: { id: { edit: { type: 'HIDDEN', integer: true } }, title: {} } });
      expect(model.fields.id!.capabilities.cellEdit).to.deep.equal({ ok: false, code: 'PRIMARY_KEY_FIELD', reason: 'Keyed.id is the primary key and cannot be edited' });
      expect(model.fields.id!.capabilities.storedKind).to.equal('integer');
    });

    it('then a collection, a password, a read-only field', () => {
      expect(setup(only({ type: 'PASSWORD', readonly: true })).caps.cellEdit).to.deep.equal({
        ok: false,
        code: 'PASSWORD_FIELD',
        reason: 'Thing.probe is a password field and cannot be edited in a cell',
      });
      expect(setup(only({ type: 'DATE', readonly: true })).caps.cellEdit).to.deep.equal({ ok: false, code: 'READONLY_FIELD', reason: 'Thing.probe is read-only' });
    });
  });

  it('a text primary key is stored as a string whatever its edit type', () => {
    const model = defineModel({ name: 'Coded', primaryKey: 'code', fields: { code: { edit: { type: 'INPUT', integer: false } }, title: {} } });
    expect(model.fields.code!.capabilities).to.include({ storedKind: 'string', queryable: true });
  });
});

describe('modelCapabilities (computed by defineModel)', () => {
  it('lists the secret fields and the fields a reader gets back, in declaration order', () => {
    const model = defineModel({
      name: 'Account',
      fields: {
        login: {},
        pwd: { edit: { type: 'PASSWORD' } },
        roles: { edit: { type: 'COLLECTION', collection: { model: 'Role', joinTable: 'account_role', ownKey: 'account_id', foreignKey: 'role_id' } } },
        pin: { edit: { type: 'PASSWORD', hashed: false } },
        active: { edit: { type: 'BOOLEAN' } },
      },
    });
    expect(model.capabilities.secretFields).to.deep.equal(['pwd', 'pin']);
    expect(model.capabilities.readableFields).to.deep.equal(['login', 'active', 'id']);
    expect(Object.isFrozen(model.capabilities)).to.equal(true);
    expect(Object.isFrozen(model.capabilities.secretFields)).to.equal(true);
  });

  it('lists collections and attachments, and tells whether writes touch or hand out grants', () => {
    const Team = defineModel({
      name: 'Team',
      fields: {
        name: {},
        members: { edit: { type: 'COLLECTION', collection: { model: 'FwUser', joinTable: 'fw_user_org', ownKey: 'org_id', foreignKey: 'user_id' } } },
        logo: { edit: { type: 'ATTACHMENT' } },
      },
    });
    expect(Team.capabilities).to.include({ touchesGrants: false, holdsGrants: true });
    expect(Team.capabilities.collectionFields).to.deep.equal(['members']);
    expect(Team.capabilities.attachmentFields).to.deep.equal(['logo']);
    const RoleLinks = defineModel({ name: 'RoleLinks', table: 'fw_role_menu', fields: { roleId: { edit: { type: 'NUMBER', integer: true } } } });
    expect(RoleLinks.capabilities).to.include({ touchesGrants: true, holdsGrants: true });
    const Org = defineModel({ name: 'Org', table: 'fw_org', fields: { name: {} } });
    expect(Org.capabilities).to.include({ touchesGrants: false, holdsGrants: true });
    const Plain = defineModel({ name: 'Plain', fields: { name: {} } });
    expect(Plain.capabilities).to.deep.include({ touchesGrants: false, holdsGrants: false, collectionFields: [], attachmentFields: [] });
  });
});
