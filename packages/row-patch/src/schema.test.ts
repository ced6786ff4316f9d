import { expect } from 'chai';
import { defineModel, FwDefinitionError, type FieldDefinitionInput, type RowRule } from '@fw/core';
import fc from 'fast-check';
import type { ValidationError } from 'yup';
import { buildRowSchema, validateRow, validateRowSync } from './index.js';

function modelWith(fields: Record<string, FieldDefinitionInput>, rowRules: RowRule[] = []) {
  return defineModel({ name: 'Probe', fields, rowRules });
}

function projectModel() {
  return defineModel({
    name: 'Project',
    fields: {
      name: { edit: { title: 'Name', notNull: true } },
      startDate: { edit: { title: 'Start', type: 'DATE', notNull: true } },
      endDate: { edit: { title: 'End', type: 'DATE' } },
    },
    rowRules: [
      {
        name: 'endAfterStart',
        fields: ['startDate', 'endDate'],
        path: 'endDate',
        test: (row) => row.endDate == null || String(row.endDate) >= String(row.startDate),
        message: '${path} must not be before the start date',
      },
    ],
  });
}

describe('validateRow(model, row)', () => {
  it('returns [] for a valid row', async () => {
    expect(await validateRow(projectModel(), { id: 1, name: 'A', startDate: '2024-01-01', endDate: '2024-02-01' })).to.deep.equal([]);
  });

  describe('required', () => {
    it('refuses null, undefined, the empty string and an empty list for notNull, naming the field title', async () => {
      const model = modelWith({ name: { edit: { title: 'Name', notNull: true } }, tags: { edit: { type: 'TAGS', notNull: true } } });
      for (const value of [null, undefined, '']) {
        expect(await validateRow(model, { name: value, tags: ['a'] })).to.deep.equal([{ path: 'name', type: 'required', message: 'Name is a required field' }]);
      }
      expect(await validateRow(model, { name: 'x', tags: [] })).to.deep.equal([{ path: 'tags', type: 'required', message: 'tags is a required field' }]);
    });

    it('takes a required rule with its own message, reported once even with notNull', async () => {
      const model = modelWith({ name: { edit: { notNull: true }, rules: [{ type: 'required', message: 'give it a name' }] } });
      expect(await validateRow(model, { name: null })).to.deep.equal([{ path: 'name', type: 'required', message: 'give it a name' }]);
    });

    it('lets an absent PASSWORD or COLLECTION field keep its stored value, but refuses null', async () => {
      const model = modelWith({
        password: { edit: { type: 'PASSWORD', notNull: true } },
        roles: { edit: { type: 'COLLECTION', notNull: true, collection: { model: 'FwRole', joinTable: 'j', ownKey: 'a', foreignKey: 'b' } } },
        name: { edit: { notNull: true } },
      });
      expect(await validateRow(model, { name: 'x' })).to.deep.equal([]);
      expect((await validateRow(model, { name: undefined })).map((d) => d.path)).to.deep.equal(['name']);
      expect((await validateRow(model, { name: 'x', password: null, roles: [] })).map((d) => `${d.path}:${d.type}`)).to.deep.equal(['password:required', 'roles:required']);
    });
  });

  describe('type checks', () => {
    it('refuses values that are not in the form representation (typeError, oneOf for choices)', async () => {
      const model = modelWith({
        price: { edit: { type: 'NUMBER' } },
        qty: { edit: { type: 'NUMBER', integer: true } },
        day: { edit: { type: 'DATE' } },
        at: { edit: { type: 'DATETIME' } },
        flag: { edit: { type: 'BOOLEAN' } },
        level: { edit: { type: 'CHOICE', choices: [{ value: 1 }] } },
        name: { edit: { type: 'INPUT' } },
      });
      const details = await validateRow(model, { price: '12', qty: 1.5, day: '2024-02-30', at: '2024-01-01T00:00:00Z', flag: 1, level: '1', name: 5 });
      expect(details.map((d) => `${d.path}:${d.type}`)).to.deep.equal([
        'price:typeError',
        'qty:typeError',
        'day:typeError',
        'at:typeError',
        'flag:typeError',
        'level:oneOf',
        'name:typeError',
      ]);
      expect(details[0]?.message).to.equal('price must be a number');
      expect(details[2]?.message).to.equal('day must be a real calendar date');
    });

    it('takes the empty string as text on a text field, and refuses it elsewhere', async () => {
      const model = modelWith({ name: { edit: { type: 'INPUT' } }, price: { edit: { type: 'NUMBER' } } });
      expect(await validateRow(model, { name: '', price: '' })).to.deep.equal([{ path: 'price', type: 'typeError', message: 'price must be a number' }]);
    });

    it('accepts null for every type that is not required', async () => {
      const model = modelWith({ price: { edit: { type: 'NUMBER' } }, day: { edit: { type: 'DATE' } }, level: { edit: { type: 'CHOICE', choices: [{ value: 1 }] } } });
      expect(await validateRow(model, { price: null, day: null, level: null })).to.deep.equal([]);
    });
  });

  describe('field rules', () => {
    it('length → min / max on characters and on list items', async () => {
      const model = modelWith({
        code: { edit: { title: 'Code' }, rules: [{ type: 'length', min: 2, max: 4 }] },
        tags: { edit: { type: 'TAGS' }, rules: [{ type: 'length', max: 1, message: 'one tag at most' }] },
      });
      expect(await validateRow(model, { code: 'a' })).to.deep.equal([{ path: 'code', type: 'min', message: 'Code must be at least 2 characters' }]);
      expect(await validateRow(model, { code: 'abcde' })).to.deep.equal([{ path: 'code', type: 'max', message: 'Code must be at most 4 characters' }]);
      expect(await validateRow(model, { code: 'abcd', tags: ['a', 'b'] })).to.deep.equal([{ path: 'tags', type: 'max', message: 'one tag at most' }]);
      expect(await validateRow(model, { code: null, tags: null })).to.deep.equal([]);
    });

    it('pattern → matches, with string or RegExp patterns; a global RegExp gives the same answer every time', async () => {
      const model = modelWith({
        sku: { rules: [{ type: 'pattern', pattern: /^[A-Z]{3}$/g }] },
        zip: { rules: [{ type: 'pattern', pattern: '^\\d{5}$', message: 'five digits' }] },
      });
      for (let i = 0; i < 3; i++) expect(await validateRow(model, { sku: 'ABC', zip: '12345' })).to.deep.equal([]);
      expect(await validateRow(model, { sku: 'abc', zip: '1234' })).to.deep.equal([
        { path: 'sku', type: 'matches', message: 'sku must match the following: "/^[A-Z]{3}$/"' },
        { path: 'zip', type: 'matches', message: 'five digits' },
      ]);
    });

    it('range → min / max: numbers numerically, DATE and DATETIME chronologically', async () => {
      const model = modelWith({
        qty: { edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 1, max: 10 }] },
        day: { edit: { type: 'DATE' }, rules: [{ type: 'range', min: '2024-01-01', max: '2024-12-31' }] },
        at: { edit: { type: 'DATETIME' }, rules: [{ type: 'range', min: '2024-01-01T00:00:00+01:00', message: 'too early' }] },
      });
      expect(await validateRow(model, { qty: 10, day: '2024-12-31', at: '2023-12-31T23:00:00.000Z' })).to.deep.equal([]);
      expect(await validateRow(model, { qty: 0.5, day: '2023-12-31', at: '2023-12-31T22:59:59.999Z' })).to.deep.equal([
        { path: 'qty', type: 'min', message: 'qty must be greater than or equal to 1' },
        { path: 'day', type: 'min', message: 'day must be 2024-01-01 or later' },
        { path: 'at', type: 'min', message: 'too early' },
      ]);
      expect(await validateRow(model, { qty: 11, day: '2025-01-01' })).to.deep.equal([
        { path: 'qty', type: 'max', message: 'qty must be less than or equal to 10' },
        { path: 'day', type: 'max', message: 'day must be 2024-12-31 or earlier' },
      ]);
    });

    it('choices → oneOf, from the rule’s values or the field’s choices, for single values and lists', async () => {
      const model = modelWith({
        status: { rules: [{ type: 'choices', values: ['open', 'closed'] }] },
        colours: {
          edit: { type: 'MULTI_CHOICE', choices: [{ value: 'red' }, { value: 'blue' }, { value: 'green' }] },
          rules: [{ type: 'choices', values: ['red', 'blue'], message: 'no green' }],
        },
      });
      expect(await validateRow(model, { status: 'open', colours: ['red'] })).to.deep.equal([]);
      expect(await validateRow(model, { status: 'lost', colours: ['red', 'green'] })).to.deep.equal([
        { path: 'status', type: 'oneOf', message: 'status must be one of the following values: open, closed' },
        { path: 'colours', type: 'oneOf', message: 'no green' },
      ]);
    });

    it('a choices rule without values on a field without choices is a definition error', () => {
      const model = modelWith({ status: { rules: [{ type: 'choices' }] } });
      expect(() => buildRowSchema(model)).to.throw(FwDefinitionError, /Probe\.fields\.status\.rules/);
    });
  });

  describe('dynamic rules', () => {
    function discountModel(
      test: (value: unknown, row: Readonly<Record<string, unknown>>) => boolean | string | Promise<boolean | string>,
      extra: { name?: string; message?: string } = {},
    ) {
      return modelWith({
        kind: { edit: { type: 'CHOICE', choices: [{ value: 'retail' }, { value: 'wholesale' }] } },
        discount: { edit: { type: 'NUMBER' }, rules: [{ type: 'dynamic', dependsOn: ['kind'], test, ...extra }] },
      });
    }

    it('reads another field of the same row', async () => {
      const model = discountModel((value, row) => value == null || row.kind === 'wholesale', { name: 'wholesaleOnly', message: 'only wholesale orders get a discount' });
      expect(await validateRow(model, { kind: 'wholesale', discount: 5 })).to.deep.equal([]);
      expect(await validateRow(model, { kind: 'retail', discount: null })).to.deep.equal([]);
      expect(await validateRow(model, { kind: 'retail', discount: 5 })).to.deep.equal([
        { path: 'discount', type: 'wholesaleOnly', message: 'only wholesale orders get a discount' },
      ]);
    });

    it('defaults its type to "dynamic"; a returned string is the message', async () => {
      const model = discountModel((value, row) => value == null || row.kind === 'wholesale' || `no discount for ${String(row.kind)}`, { message: 'ignored' });
      expect(await validateRow(model, { kind: 'retail', discount: 5 })).to.deep.equal([{ path: 'discount', type: 'dynamic', message: 'no discount for retail' }]);
    });

    it('runs on a missing value too, and may be async', async () => {
      const model = discountModel(async (value, row) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return row.kind !== 'wholesale' || value != null;
      });
      expect(await validateRow(model, { kind: 'wholesale', discount: null })).to.deep.equal([{ path: 'discount', type: 'dynamic', message: 'discount is invalid' }]);
      expect(await validateRow(model, { kind: 'wholesale', discount: 1 })).to.deep.equal([]);
    });

    it('passes only on true: a rule that returns nothing fails closed', async () => {
      const model = discountModel(() => undefined as unknown as boolean);
      expect((await validateRow(model, { discount: 1 })).map((d) => d.type)).to.deep.equal(['dynamic']);
    });

    it('lets an error thrown by a rule through (a bug, not a validation failure)', async () => {
      const model = discountModel(() => {
        throw new Error('rule crashed');
      });
      let caught: unknown;
      await validateRow(model, { discount: 1 }).catch((error: unknown) => (caught = error));
      expect(caught).to.be.instanceOf(Error).with.property('message', 'rule crashed');
    });
  });

  describe('row rules', () => {
    it('report on their path with their name as type, after the field failures', async () => {
      const details = await validateRow(projectModel(), { name: '', startDate: '2024-05-01', endDate: '2024-04-01' });
      expect(details).to.deep.equal([
        { path: 'name', type: 'required', message: 'Name is a required field' },
        { path: 'endDate', type: 'endAfterStart', message: 'End must not be before the start date' },
      ]);
    });

    it('report on their first field without a path, with a returned string as message, async', async () => {
      const model = modelWith({ min: { edit: { type: 'NUMBER' } }, max: { edit: { type: 'NUMBER' } } }, [
        { name: 'ordered', fields: ['min', 'max'], test: async (row) => Number(row.max) >= Number(row.min) || `max below ${String(row.min)}` },
      ]);
      expect(await validateRow(model, { min: 5, max: 3 })).to.deep.equal([{ path: 'min', type: 'ordered', message: 'max below 5' }]);
      expect(await validateRow(model, { min: 1, max: 3 })).to.deep.equal([]);
    });
  });

  it('reports every failure of every field (abortEarly false)', async () => {
    const model = modelWith({
      a: { edit: { notNull: true } },
      b: {
        rules: [
          { type: 'length', max: 1 },
          { type: 'pattern', pattern: '^x' },
        ],
      },
      c: { edit: { type: 'NUMBER' }, rules: [{ type: 'range', max: 0 }] },
    });
    expect((await validateRow(model, { a: null, b: 'yy', c: 3 })).map((d) => `${d.path}:${d.type}`)).to.deep.equal(['a:required', 'b:max', 'b:matches', 'c:max']);
  });

  it('does not change the row, and hands rules a frozen copy', async () => {
    const seen: unknown[] = [];
    const model = modelWith({
      tags: { edit: { type: 'TAGS' } },
      name: { rules: [{ type: 'dynamic', dependsOn: ['tags'], test: (_v, row) => (seen.push(row), true) }] },
    });
    const row = { name: 'x', tags: ['b', 'a'], extra: 1 };
    expect(await validateRow(model, row)).to.deep.equal([]);
    expect(row).to.deep.equal({ name: 'x', tags: ['b', 'a'], extra: 1 });
    expect(seen[0]).not.to.equal(row);
    expect(Object.isFrozen(seen[0])).to.equal(true);
    expect(Object.isFrozen((seen[0] as { tags: unknown }).tags)).to.equal(true);
    expect(Object.isFrozen(row)).to.equal(false);
    // A frozen input is fine too.
    expect(await validateRow(model, Object.freeze({ name: 'x', tags: Object.freeze(['a']) }))).to.deep.equal([]);
  });
});

describe('buildRowSchema(model)', () => {
  it('builds once per model and returns the cached schema', () => {
    const model = projectModel();
    const schema = buildRowSchema(model);
    expect(buildRowSchema(model)).to.equal(schema);
    expect(buildRowSchema(projectModel())).not.to.equal(schema);
  });

  it('is a yup object schema with one entry per field', async () => {
    const model = projectModel();
    const schema = buildRowSchema(model);
    expect(Object.keys(schema.fields)).to.deep.equal(model.fieldNames);
    expect(await schema.isValid({ name: 'A', startDate: '2024-01-01' })).to.equal(true);
    expect(await schema.isValid({ name: 'A', startDate: '2024-01-01', endDate: '2023-01-01' })).to.equal(false);
  });
});

describe('validateRow / validateRowSync: the direct pass check agrees with yup', () => {
  // Every edit type and rule kind the schema builds tests for, so a row that passes the direct
  // check and would fail in yup (or the other way round) shows up as a difference.
  const model = defineModel({
    name: 'Mixed',
    fields: {
      name: { edit: { title: 'Name', notNull: true }, rules: [{ type: 'length', min: 2, max: 6 }] },
      code: { rules: [{ type: 'pattern', pattern: '^[A-Z]+$' }] },
      amount: { edit: { type: 'NUMBER' }, rules: [{ type: 'range', min: 0, max: 100 }] },
      count: { edit: { type: 'NUMBER', integer: true } },
      kind: { edit: { type: 'CHOICE', choices: [{ value: 'a' }, { value: 'b' }] } },
      tags: { edit: { type: 'TAGS' }, rules: [{ type: 'length', max: 2 }] },
      done: { edit: { type: 'BOOLEAN' } },
      start: { edit: { type: 'DATE' }, rules: [{ type: 'range', min: '2020-01-01' }] },
      end: { edit: { type: 'DATE' } },
      at: { edit: { type: 'DATETIME' } },
      note: {
        edit: { type: 'TEXTAREA' },
        rules: [{ type: 'dynamic', name: 'noteForB', dependsOn: ['kind'], test: (value, row) => row.kind !== 'b' || (value != null && value !== '') }],
      },
    },
    rowRules: [{ name: 'endAfterStart', fields: ['start', 'end'], path: 'end', test: (row) => row.end == null || row.start == null || String(row.end) >= String(row.start) }],
  });
  const pick = <T>(values: T[]) => fc.constantFrom(...values);
  const row = fc.record(
    {
      id: pick([1, 2]),
      name: pick<unknown>([null, '', 'a', 'ab', 'abcdef', 'abcdefg', 3, ['ab']]),
      code: pick<unknown>([null, '', 'AB', 'ab', 'A1', 7]),
      amount: pick<unknown>([null, 0, 50.5, 100, 101, -1, '5', NaN, Infinity]),
      count: pick<unknown>([null, 1, 1.5, 2 ** 31, -(2 ** 31), '1']),
      kind: pick<unknown>([null, 'a', 'b', 'c', 1, '']),
      tags: pick<unknown>([null, [], ['x'], ['x', 'y'], ['x', 'y', 'z'], 'x', [1]]),
      done: pick<unknown>([null, true, false, 0, 'true']),
      start: pick<unknown>([null, '2019-12-31', '2020-01-01', '2024-05-01', '2024-13-01', 20200101]),
      end: pick<unknown>([null, '2019-06-01', '2024-06-01', 'soon']),
      at: pick<unknown>([null, '2024-05-01T10:00:00.000Z', '2024-05-01', 'noon']),
      note: pick<unknown>([null, '', 'why', 5]),
    },
    { requiredKeys: ['id'] },
  );
  function yupDetails(value: Record<string, unknown>): string[] {
    try {
      buildRowSchema(model).validateSync(value, { abortEarly: false, strict: true });
      return [];
    } catch (error) {
      return (error as ValidationError).inner.map((e) => `${e.path}:${e.type}:${e.message}`);
    }
  }
  const described = (details: Array<{ path?: string; type?: string; message: string }>) => details.map((d) => `${d.path}:${d.type}:${d.message}`);

  it('gives the same details as yup alone for 1,000 generated rows, sync and async', async () => {
    await fc.assert(
      fc.asyncProperty(row, async (value) => {
        const expected = yupDetails(value);
        expect(described(validateRowSync(model, value)!)).to.deep.equal(expected);
        expect(described(await validateRow(model, value))).to.deep.equal(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it('asks yup only for a row that fails a test', () => {
    const probe = modelWith({ name: { edit: { notNull: true }, rules: [{ type: 'length', max: 3 }] } });
    const schema = buildRowSchema(probe);
    let asked = 0;
    const validateSync = schema.validateSync.bind(schema);
    schema.validateSync = ((value: unknown, options: unknown) => {
      asked += 1;
      return validateSync(value, options as never);
    }) as typeof schema.validateSync;
    expect(validateRowSync(probe, { name: 'abc' })).to.deep.equal([]);
    expect(asked).to.equal(0);
    expect(validateRowSync(probe, { name: 'abcd' })).to.deep.equal([{ path: 'name', type: 'max', message: 'name must be at most 3 characters' }]);
    expect(asked).to.equal(1);
  });

  it('leaves a model whose rule answers with a promise to yup, and validateRowSync then says so', async () => {
    const probe = modelWith({ n: { edit: { type: 'NUMBER' }, rules: [{ type: 'dynamic', dependsOn: ['n'], test: async (v) => v !== 13 }] } });
    expect(await validateRow(probe, { n: 13 })).to.deep.equal([{ path: 'n', type: 'dynamic', message: 'n is invalid' }]);
    expect(await validateRow(probe, { n: 12 })).to.deep.equal([]);
    expect(validateRowSync(probe, { n: 12 })).to.equal(undefined);
  });
});
