import { expect } from 'chai';
import { FwDefinitionError, ModelRegistry, createRegistry, defineModel } from '@fw/core';

function setup() {
  const Author = defineModel({ name: 'Author', fields: { name: { edit: { notNull: true } } } });
  const Book = defineModel({
    name: 'Book',
    fields: {
      title: {},
      authorId: { edit: { type: 'REFERENCE_TABLE', reference: { model: 'Author', labelField: 'name' } } },
    },
  });
  return { Author, Book };
}

describe('ModelRegistry', () => {
  it('registers definitions and plain inputs and finds them by name', () => {
    const { Author, Book } = setup();
    const registry = createRegistry([Author, Book, { name: 'Tag', fields: { label: {} } }]);
    expect(registry.size).to.equal(3);
    expect(registry.get('Book')).to.equal(Book);
    expect(registry.get('Tag')?.table).to.equal('tag');
    expect(registry.has('Nope')).to.equal(false);
    expect(registry.list().map((m) => m.name)).to.deep.equal(['Author', 'Book', 'Tag']);
  });

  it('rejects a duplicate name', () => {
    const { Author } = setup();
    const registry = new ModelRegistry().register(Author);
    expect(() => registry.register({ name: 'Author', table: 'other', fields: {} })).to.throw(FwDefinitionError, /Author: a model with this name is already registered/);
    expect(registry.size).to.equal(1);
  });

  it('rejects two models on one table', () => {
    expect(() =>
      createRegistry([
        { name: 'A', table: 't', fields: {} },
        { name: 'B', table: 't', fields: {} },
      ]),
    ).to.throw(FwDefinitionError, /B\.table: table t already belongs to model A/);
  });

  it('rejects a reference to a model that is not registered', () => {
    const { Book } = setup();
    expect(() => createRegistry([Book])).to.throw(FwDefinitionError, /Book\.fields\.authorId\.edit\.reference\.model: names no registered model: "Author"/);
  });

  it('rejects a label field the referenced model lacks', () => {
    const { Author } = setup();
    const Bad = defineModel({ name: 'Bad', fields: { a: { edit: { type: 'REFERENCE_TREE', reference: { model: 'Author', labelField: 'title' } } } } });
    expect(() => createRegistry([Author, Bad])).to.throw(FwDefinitionError, /Bad\.fields\.a\.edit\.reference\.labelField: model Author has no field title/);
  });

  it("keeps a collection's label field and checks that the other model has it, stored and not secret", () => {
    const Tag = defineModel({ name: 'Tag', fields: { label: {}, secret: { edit: { type: 'PASSWORD' } } } });
    const collection = (labelField: string) => ({
      type: 'COLLECTION' as const,
      collection: { model: 'Tag', joinTable: 'b_tag', ownKey: 'b_id', foreignKey: 'tag_id', labelField },
    });
    const Good = defineModel({ name: 'B', fields: { tags: { edit: collection('label') } } });
    expect(createRegistry([Tag, Good]).get('B')!.fields.tags!.edit.collection!.labelField).to.equal('label');
    expect(() => createRegistry([Tag, defineModel({ name: 'B', fields: { tags: { edit: collection('nope') } } })])).to.throw(
      FwDefinitionError,
      /B\.fields\.tags\.edit\.collection\.labelField: model Tag has no field nope/,
    );
    expect(() => createRegistry([Tag, defineModel({ name: 'B', fields: { tags: { edit: collection('secret') } } })])).to.throw(
      FwDefinitionError,
      /B\.fields\.tags\.edit\.collection\.labelField: Tag\.secret cannot be a label/,
    );
    const ByPassword = defineModel({ name: 'C', fields: { tagId: { edit: { type: 'REFERENCE_TABLE', reference: { model: 'Tag', labelField: 'secret' } } } } });
    expect(() => createRegistry([Tag, ByPassword])).to.throw(FwDefinitionError, /C\.fields\.tagId\.edit\.reference\.labelField: Tag\.secret cannot be a label/);
  });

  it('checks collections too', () => {
    const Bad = defineModel({
      name: 'Bad',
      fields: { tags: { edit: { type: 'COLLECTION', collection: { model: 'Tag', joinTable: 'bad_tag', ownKey: 'bad_id', foreignKey: 'tag_id' } } } },
    });
    expect(() => createRegistry([Bad])).to.throw(FwDefinitionError, /Bad\.fields\.tags\.edit\.collection\.model/);
  });
});
