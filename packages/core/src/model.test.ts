import { expect } from 'chai';
import { BUILTIN_MODELS, DEFAULT_POWER, EditType, FwDefinitionError, POWER_FLAGS, defineModel, type ModelDefinitionInput } from '@fw/core';

function setup(overrides: Partial<ModelDefinitionInput> = {}): ModelDefinitionInput {
  return {
    name: 'Book',
    fields: {
      title: { views: { title: 'Title' }, edit: { type: 'INPUT', notNull: true }, rules: [{ type: 'length', max: 200 }] },
      status: { edit: { type: 'CHOICE', choices: [{ value: 'draft' }, { value: 'published', label: 'Published' }], cellEdit: false } },
      startDate: { edit: { type: 'DATE' } },
      endDate: { edit: { type: 'DATE' } },
    },
    ...overrides,
  };
}

function expectDefinitionError(fn: () => unknown, key: string, text?: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught, 'expected a definition error').to.be.instanceOf(FwDefinitionError);
  const error = caught as FwDefinitionError;
  expect(error.key).to.equal(key);
  expect(error.message).to.contain(key);
  if (text) expect(error.message).to.match(text);
}

describe('defineModel(input)', () => {
  it('takes an optional singular title (drawer titles: "Add Book"), a non-empty string', () => {
    expect(defineModel(setup({ title: 'Books', singularTitle: 'Book' })).singularTitle).to.equal('Book');
    expect(defineModel(setup()).singularTitle).to.equal(undefined);
    expectDefinitionError(() => defineModel(setup({ singularTitle: '' })), 'Book.singularTitle', /non-empty string/);
    expectDefinitionError(() => defineModel(setup({ singularTitle: 3 as unknown as string })), 'Book.singularTitle');
  });

  it('applies the reference defaults to every power flag', () => {
    const model = defineModel(setup());
    expect(model.power).to.deep.equal({
      add: true,
      delete: true,
      edit: true,
      query: true,
      viewDetails: true,
      export: false,
      importable: false,
      print: true,
      copy: true,
      cellEdit: true,
      ai: true,
    });
    expect(Object.keys(model.power)).to.have.members([...POWER_FLAGS]);
    expect(model.powerHandler).to.equal(undefined);
  });

  it('keeps declared flags and the handler', () => {
    const handler = { handler: (p: { add: boolean }) => void (p.add = false) };
    const model = defineModel(setup({ power: { export: true, ai: false, cellEdit: false, powerHandler: handler } }));
    expect(model.power.export).to.equal(true);
    expect(model.power.ai).to.equal(false);
    expect(model.power.cellEdit).to.equal(false);
    expect(model.power.add).to.equal(DEFAULT_POWER.add);
    expect(model.powerHandler).to.equal(handler);
  });

  it('fills table, primary key and field defaults', () => {
    const model = defineModel(setup({ name: 'BookOrder' }));
    expect(model.table).to.equal('book_order');
    expect(model.primaryKey).to.equal('id');
    expect(model.fieldNames).to.deep.equal(['title', 'status', 'startDate', 'endDate', 'id']);
    const id = model.fields.id!;
    expect(id.edit.type).to.equal(EditType.HIDDEN);
    expect(id.edit.readonly).to.equal(true);
    expect(id.primaryKey).to.equal(true);
    const title = model.fields.title!;
    expect(title.column).to.equal('title');
    expect(title.edit.cellEdit).to.equal(true);
    expect(title.edit.notNull).to.equal(true);
    expect(title.views).to.deep.equal({ title: 'Title', show: true, sortable: true });
    expect(model.fields.status!.edit.cellEdit).to.equal(false);
    expect(model.fields.status!.edit.choices).to.deep.equal([
      { value: 'draft', label: 'draft' },
      { value: 'published', label: 'Published' },
    ]);
  });

  it('hides passwords from the table by default and never sorts on them', () => {
    const model = defineModel(setup({ fields: { secret: { edit: { type: 'PASSWORD' } } } }));
    expect(model.fields.secret!.views.show).to.equal(false);
    expect(model.fields.secret!.views.sortable).to.equal(false);
  });

  it('merges model-level rules into their fields', () => {
    const model = defineModel(setup({ rules: [{ field: 'title', type: 'pattern', pattern: '^[A-Z]' }] }));
    expect(model.fields.title!.rules.map((r) => r.type)).to.deep.equal(['length', 'pattern']);
  });

  it('returns a frozen definition that the caller cannot change afterwards', () => {
    const input = setup();
    const model = defineModel(input);
    expect(Object.isFrozen(model)).to.equal(true);
    expect(Object.isFrozen(model.power)).to.equal(true);
    expect(Object.isFrozen(model.fields.title)).to.equal(true);
    expect(input).to.not.have.property('table');
    expect(input.fields).to.not.have.property('id');
  });

  it('keeps a trash by default; trash: false turns it off, as the built-in logs do', () => {
    expect(defineModel(setup()).trash).to.equal(true);
    expect(defineModel(setup({ trash: false })).trash).to.equal(false);
    const trashless = BUILTIN_MODELS.filter((m) => !m.trash).map((m) => m.name);
    expect(trashless).to.deep.equal(['FwLoginLog', 'FwOperateLog']);
  });

  describe('rejects a bad definition, naming the key', () => {
    const cases: Array<[string, () => unknown, string, RegExp?]> = [
      ['a bad name', () => defineModel(setup({ name: 'my model' })), 'model.name'],
      ['an unknown model option', () => defineModel({ ...setup(), colour: 'red' } as ModelDefinitionInput), 'Book.colour'],
      ['an unknown edit type', () => defineModel(setup({ fields: { a: { edit: { type: 'SLIDER' as EditType } } } })), 'Book.fields.a.edit.type', /unknown edit type "SLIDER"/],
      ['a non-boolean power flag', () => defineModel(setup({ power: { export: 'yes' as unknown as boolean } })), 'Book.power.export', /boolean/],
      ['an unknown power attribute', () => defineModel(setup({ power: { exprot: true } as never })), 'Book.power.exprot', /unknown power attribute/],
      ['a bad power handler', () => defineModel(setup({ power: { powerHandler: 42 as never } })), 'Book.power.powerHandler'],
      ['a model rule on a missing field', () => defineModel(setup({ rules: [{ field: 'author', type: 'required' }] })), 'Book.rules[0].field', /author/],
      [
        'a dynamic rule reading a missing field',
        () => defineModel(setup({ fields: { a: { rules: [{ type: 'dynamic', dependsOn: ['nope'], test: () => true }] } } })),
        'Book.fields.a.rules[0].dependsOn[0]',
      ],
      [
        'a row rule on a missing field',
        () => defineModel(setup({ rowRules: [{ name: 'order', fields: ['startDate', 'finish'], test: () => true }] })),
        'Book.rowRules[0].fields[1]',
      ],
      ['an unknown rule type', () => defineModel(setup({ fields: { a: { rules: [{ type: 'email' } as never] } } })), 'Book.fields.a.rules[0].type'],
      ['a broken pattern', () => defineModel(setup({ fields: { a: { rules: [{ type: 'pattern', pattern: '([' }] } } })), 'Book.fields.a.rules[0].pattern'],
      ['a CHOICE without choices', () => defineModel(setup({ fields: { a: { edit: { type: 'CHOICE' } } } })), 'Book.fields.a.edit.choices'],
      ['choices on an INPUT', () => defineModel(setup({ fields: { a: { edit: { choices: [{ value: 1 }] } } } })), 'Book.fields.a.edit.choices'],
      [
        'integer on an INPUT (a text column whose values no number matches)',
        () => defineModel(setup({ fields: { a: { edit: { integer: true } } } })),
        'Book.fields.a.edit.integer',
      ],
      ['integer on a CHOICE', () => defineModel(setup({ fields: { a: { edit: { type: 'CHOICE', choices: [{ value: 1 }], integer: true } } } })), 'Book.fields.a.edit.integer'],
      ['a reference without a model', () => defineModel(setup({ fields: { a: { edit: { type: 'REFERENCE_TABLE' } } } })), 'Book.fields.a.edit.reference'],
      [
        'a collection without a join table',
        () => defineModel(setup({ fields: { a: { edit: { type: 'COLLECTION', collection: { model: 'Tag' } as never } } } })),
        'Book.fields.a.edit.collection',
      ],
      [
        'a reference label field that is not a string',
        () => defineModel(setup({ fields: { a: { edit: { type: 'REFERENCE_TABLE', reference: { model: 'Tag', labelField: 7 as never } } } } })),
        'Book.fields.a.edit.reference.labelField',
      ],
      [
        'an empty collection label field',
        () => defineModel(setup({ fields: { a: { edit: { type: 'COLLECTION', collection: { model: 'Tag', joinTable: 'b_t', ownKey: 'b', foreignKey: 't', labelField: '' } } } } })),
        'Book.fields.a.edit.collection.labelField',
      ],
      ['a non-boolean cellEdit', () => defineModel(setup({ fields: { a: { edit: { cellEdit: 0 as unknown as boolean } } } })), 'Book.fields.a.edit.cellEdit'],
      ['two fields on one column', () => defineModel(setup({ fields: { a: {}, b: { column: 'a' } } })), 'Book.fields.b.column'],
      ['an unknown data-proxy hook', () => defineModel(setup({ dataProxy: { beforeSave: () => undefined } as never })), 'Book.dataProxy.beforeSave'],
      ['a field name that is not an identifier', () => defineModel(setup({ fields: { 'a b': {} } })), 'Book.fields.a b'],
      ['a field that would reach the prototype', () => defineModel(setup({ fields: JSON.parse('{"__proto__": {}}') })), 'Book.fields.__proto__'],
      ['a field named constructor', () => defineModel(setup({ fields: { constructor: {} } as never })), 'Book.fields.constructor'],
      ['a salt column on a non-PASSWORD field', () => defineModel(setup({ fields: { a: { edit: { saltColumn: 'a_salt' } } } })), 'Book.fields.a.edit.saltColumn'],
      [
        'a salt column with hashed off',
        () => defineModel(setup({ fields: { a: { edit: { type: 'PASSWORD', hashed: false, saltColumn: 'a_salt' } } } })),
        'Book.fields.a.edit.saltColumn',
      ],
      ['a column that is not an identifier', () => defineModel(setup({ fields: { a: { column: 'a; drop table x' } } })), 'Book.fields.a.column'],
      ['a non-boolean trash switch', () => defineModel(setup({ trash: 'no' as unknown as boolean })), 'Book.trash'],
    ];
    for (const [what, fn, key, text] of cases) {
      it(what, () => expectDefinitionError(fn, key, text));
    }
  });
});
