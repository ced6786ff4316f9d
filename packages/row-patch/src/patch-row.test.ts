import { expect } from 'chai';
import { defineModel, type PowerDeclaration } from '@fw/core';
import { ROW_PATCH_ERROR_CODES, cellEditRefusal, changedColumns, patchRow, readEntity, rowPatchError, validateRow, type FormRow, type RowPatchResult } from './index.js';

function setup(power: PowerDeclaration = {}) {
  const calls = { rowRule: 0 };
  const model = defineModel({
    name: 'Project',
    power,
    fields: {
      name: { edit: { title: 'Name', notNull: true }, rules: [{ type: 'length', max: 20 }] },
      status: { edit: { type: 'CHOICE', choices: [{ value: 'draft' }, { value: 'approved' }] } },
      budget: {
        edit: { type: 'NUMBER' },
        rules: [
          {
            type: 'dynamic',
            name: 'budgetNeedsApproval',
            dependsOn: ['status'],
            test: (value, row) => value == null || row.status === 'approved' || 'a budget needs an approved project',
          },
        ],
      },
      startDate: { edit: { type: 'DATE', notNull: true } },
      endDate: { edit: { type: 'DATE' } },
      owner: { edit: { type: 'INPUT', cellEdit: false } },
      createdOn: { edit: { type: 'DATE', readonly: true } },
      secret: { edit: { type: 'PASSWORD' } },
      members: { edit: { type: 'COLLECTION', collection: { model: 'FwUser', joinTable: 'project_user', ownKey: 'project_id', foreignKey: 'user_id' } } },
    },
    rowRules: [
      {
        name: 'endAfterStart',
        fields: ['startDate', 'endDate'],
        path: 'endDate',
        test: (row) => {
          calls.rowRule++;
          return row.endDate == null || String(row.endDate) >= String(row.startDate);
        },
        message: 'the end date must not be before the start date',
      },
    ],
  });
  const stored: FormRow = deepFreeze({
    id: 1,
    name: 'Bridge',
    status: 'draft',
    budget: null,
    startDate: '2024-03-01',
    endDate: '2024-06-30',
    owner: 'ann',
    createdOn: '2024-01-15',
  });
  return { model, stored, calls };
}

function deepFreeze<T extends object>(value: T): T {
  for (const item of Object.values(value)) if (typeof item === 'object' && item !== null) deepFreeze(item);
  return Object.freeze(value);
}

function expectRejected(result: RowPatchResult, code: keyof typeof ROW_PATCH_ERROR_CODES): void {
  expect(result.ok, JSON.stringify(result)).to.equal(false);
  if (result.ok) return;
  expect(result.code).to.equal(code);
  expect(result.status).to.equal(ROW_PATCH_ERROR_CODES[code].status);
  expect(result.message).to.be.a('string').and.not.equal('');
}

/** What the edit form does with the same change: read the body, merge onto the stored row, validate. */
async function formOutcome(model: ReturnType<typeof setup>['model'], stored: FormRow, body: Record<string, unknown>) {
  const { values, errors } = readEntity(model, body, 'update');
  expect(errors).to.deep.equal([]);
  return validateRow(model, { ...stored, ...values });
}

describe('patchRow(model, storedFormRow, field, value)', () => {
  it('returns the complete entity with the one value replaced, converted, and whether it changed', async () => {
    const { model, stored, calls } = setup();
    const result = await patchRow(model, stored, 'name', 'Tunnel');
    expect(result).to.deep.equal({ ok: true, changed: true, row: { ...stored, name: 'Tunnel' } });
    expect(calls.rowRule, 'the whole-row validation ran').to.equal(1);
    const same = await patchRow(model, stored, 'endDate', ' 2024-06-30 ');
    expect(same).to.deep.equal({ ok: true, changed: false, row: stored });
  });

  it('gives a row whose changed columns are only the patched one', async () => {
    const { model, stored } = setup();
    const result = await patchRow(model, stored, 'endDate', '2024-07-31');
    if (!result.ok) throw new Error(result.message);
    expect(changedColumns(model, stored, result.row)).to.deep.equal({ endDate: '2024-07-31' });
  });

  it('leaves validation to the caller with validate: false, but still refuses and converts', async () => {
    const { model, calls } = setup();
    const stored = deepFreeze({ id: 1, name: 'x'.repeat(30), status: 'draft', startDate: '2024-03-01' });
    const result = await patchRow(model, stored, 'status', 'approved', { validate: false });
    expect(result).to.deep.include({ ok: true, changed: true });
    expect(calls.rowRule, 'no validation ran').to.equal(0);
    expectRejected(await patchRow(model, stored, 'startDate', 'soon', { validate: false }), 'INVALID_VALUE');
  });

  it('validates the whole row: a rule of another field fails the patch', async () => {
    const { model } = setup();
    const stored = deepFreeze({ id: 1, name: 'x'.repeat(30), status: 'draft', startDate: '2024-03-01' });
    const result = await patchRow(model, stored, 'status', 'approved');
    expectRejected(result, 'VALIDATION_FAILED');
    if (!result.ok) expect(result.details).to.deep.equal([{ path: 'name', type: 'max', message: 'Name must be at most 20 characters' }]);
  });

  describe('a cross-field invariant (end date after start date)', () => {
    it('cannot be broken by patching either cell alone, with the same outcome as the edit form', async () => {
      const { model, stored } = setup();
      const failure = [{ path: 'endDate', type: 'endAfterStart', message: 'the end date must not be before the start date' }];
      for (const [field, value] of [
        ['startDate', '2024-07-01'],
        ['endDate', '2024-02-01'],
      ] as const) {
        const result = await patchRow(model, stored, field, value);
        expectRejected(result, 'VALIDATION_FAILED');
        if (!result.ok) expect(result.details).to.deep.equal(failure);
        expect(await formOutcome(model, stored, { [field]: value })).to.deep.equal(failure);
      }
    });

    it('accepts a patch that keeps it, as the edit form does', async () => {
      const { model, stored } = setup();
      expect((await patchRow(model, stored, 'startDate', '2024-06-30')).ok).to.equal(true);
      expect(await formOutcome(model, stored, { startDate: '2024-06-30' })).to.deep.equal([]);
    });
  });

  describe('a dynamic rule reading another field', () => {
    it('resolves against the stored value of that field', async () => {
      const { model, stored } = setup();
      const refused = await patchRow(model, stored, 'budget', 1000);
      expectRejected(refused, 'VALIDATION_FAILED');
      if (!refused.ok) expect(refused.details).to.deep.equal([{ path: 'budget', type: 'budgetNeedsApproval', message: 'a budget needs an approved project' }]);
      expect(await formOutcome(model, stored, { budget: 1000 })).to.deep.equal(refused.ok ? [] : refused.details);

      const approved = deepFreeze({ ...stored, status: 'approved' });
      expect(await patchRow(model, approved, 'budget', '1000')).to.deep.equal({ ok: true, changed: true, row: { ...approved, budget: 1000 } });
    });

    it('re-runs when the other field is patched', async () => {
      const { model, stored } = setup();
      const funded = deepFreeze({ ...stored, status: 'approved', budget: 500 });
      const result = await patchRow(model, funded, 'status', 'draft');
      expectRejected(result, 'VALIDATION_FAILED');
      if (!result.ok) expect(result.details?.map((d) => d.path)).to.deep.equal(['budget']);
    });
  });

  describe('rejections before validating', () => {
    const cases: { title: string; power?: PowerDeclaration; field: string; value: unknown; code: keyof typeof ROW_PATCH_ERROR_CODES }[] = [
      { title: 'model cellEdit: false', power: { cellEdit: false }, field: 'name', value: 'x', code: 'CELL_EDIT_DISABLED' },
      { title: 'unknown field', field: 'nmae', value: 'x', code: 'UNKNOWN_FIELD' },
      { title: 'a prototype name', field: 'constructor', value: 'x', code: 'UNKNOWN_FIELD' },
      { title: 'field cellEdit: false', field: 'owner', value: 'bob', code: 'FIELD_CELL_EDIT_DISABLED' },
      { title: 'primary key', field: 'id', value: 2, code: 'PRIMARY_KEY_FIELD' },
      { title: 'collection field', field: 'members', value: [1, 2], code: 'COLLECTION_FIELD' },
      { title: 'password field', field: 'secret', value: null, code: 'PASSWORD_FIELD' },
      { title: 'read-only field', field: 'createdOn', value: '2024-01-16', code: 'READONLY_FIELD' },
      { title: 'a value the type cannot convert', field: 'budget', value: 'lots', code: 'INVALID_VALUE' },
      { title: 'a value that is not a choice', field: 'status', value: 'cancelled', code: 'INVALID_VALUE' },
    ];
    for (const { title, power, field, value, code } of cases) {
      it(`${title} → ${code}, without validating or changing the stored row`, async () => {
        const { model, stored, calls } = setup(power);
        const before = JSON.stringify(stored);
        const result = await patchRow(model, stored, field, value);
        expectRejected(result, code);
        expect(calls.rowRule, 'validation ran').to.equal(0);
        expect(JSON.stringify(stored)).to.equal(before);
      });
    }

    it('INVALID_VALUE carries a detail on the field', async () => {
      const { model, stored } = setup();
      const result = await patchRow(model, stored, 'endDate', '2024-02-30');
      expectRejected(result, 'INVALID_VALUE');
      if (!result.ok) expect(result.details).to.deep.equal([{ path: 'endDate', type: 'typeError', message: 'endDate must be a real calendar date' }]);
    });

    it('checks in order: the model switch first, then the field name, then the field switches', async () => {
      const { model: closed, stored } = setup({ cellEdit: false });
      expectRejected(await patchRow(closed, stored, 'nmae', 'x'), 'CELL_EDIT_DISABLED');
      expectRejected(await patchRow(closed, stored, 'owner', 'x'), 'CELL_EDIT_DISABLED');
      const { model } = setup();
      expectRejected(await patchRow(model, stored, 'owner', { not: 'a string' }), 'FIELD_CELL_EDIT_DISABLED');
      expectRejected(await patchRow(model, stored, 'createdOn', 'not a date'), 'READONLY_FIELD');
    });

    it('the declared cellEdit: false is read from the definition, whatever the caller’s power says', async () => {
      const { model, stored } = setup({ cellEdit: false, edit: true });
      expect(model.power.cellEdit).to.equal(false);
      expectRejected(await patchRow(model, stored, 'name', 'x'), 'CELL_EDIT_DISABLED');
    });
  });
});

describe('cellEditRefusal(model, field)', () => {
  it('answers the switch and field checks without a row', () => {
    const { model } = setup();
    expect(cellEditRefusal(model, 'name')).to.equal(undefined);
    expect(cellEditRefusal(model, 'owner')).to.include({ ok: false, code: 'FIELD_CELL_EDIT_DISABLED', status: 403 });
    expect(cellEditRefusal(model, 'id')).to.include({ code: 'PRIMARY_KEY_FIELD', status: 400 });
    expect(cellEditRefusal(setup({ cellEdit: false }).model, 'name')).to.include({ code: 'CELL_EDIT_DISABLED', status: 403 });
  });

  it('refuses a field name that is not a string (a crafted body)', () => {
    const { model } = setup();
    for (const crafted of [42, null, ['name'], { toString: () => 'name' }]) {
      expect(cellEditRefusal(model, crafted)).to.include({ code: 'UNKNOWN_FIELD', status: 400 });
    }
  });
});

describe('rowPatchError(code, message, details)', () => {
  it('makes an FwError with the code’s status and the details', () => {
    const error = rowPatchError('VALIDATION_FAILED', undefined, [{ path: 'a', type: 'required', message: 'a is a required field' }]);
    expect(error).to.include({ code: 'VALIDATION_FAILED', status: 422, message: 'Validation failed' });
    expect(error.toBody()).to.deep.equal({
      error: { code: 'VALIDATION_FAILED', message: 'Validation failed', details: [{ path: 'a', type: 'required', message: 'a is a required field' }] },
    });
    expect(rowPatchError('FIELD_CELL_EDIT_DISABLED').status).to.equal(403);
  });
});
