import { expect } from 'chai';
import { defineModel } from '@fw/core';
import { readEntity, validateRow } from './index.js';

function setup() {
  const model = defineModel({
    name: 'Account',
    fields: {
      name: { edit: { title: 'Name', notNull: true } },
      age: { edit: { title: 'Age', type: 'NUMBER', integer: true } },
      active: { edit: { type: 'BOOLEAN', defaultValue: true } },
      createdOn: { edit: { type: 'DATE', readonly: true } },
      password: { edit: { type: 'PASSWORD', notNull: true } },
      roles: { edit: { type: 'COLLECTION', collection: { model: 'FwRole', joinTable: 'account_role', ownKey: 'account_id', foreignKey: 'role_id' } } },
    },
  });
  return { model };
}

describe('readEntity(model, body, mode)', () => {
  it('add: converts every present field and fills absent ones with their default or null', () => {
    const { model } = setup();
    const { values, errors } = readEntity(model, { name: 'Ann', age: '42', roles: '[3,1]', password: 'pw' }, 'add');
    expect(errors).to.deep.equal([]);
    expect(values).to.deep.equal({ name: 'Ann', age: 42, active: true, createdOn: null, password: 'pw', roles: [1, 3] });
  });

  it('add: drops the primary key silently', () => {
    const { model } = setup();
    const { values, errors } = readEntity(model, { id: 99, name: 'Ann', password: 'pw' }, 'add');
    expect(errors).to.deep.equal([]);
    expect(values).not.to.have.property('id');
  });

  it('add: a missing required field reaches validation as null', async () => {
    const { model } = setup();
    const { values, errors } = readEntity(model, { name: 'Ann' }, 'add');
    expect(errors).to.deep.equal([]);
    expect(await validateRow(model, values)).to.deep.equal([{ path: 'password', type: 'required', message: 'password is a required field' }]);
  });

  it('rejects unknown field names, prototype names included', () => {
    const { model } = setup();
    const body = JSON.parse('{"name":"Ann","nmae":"x","constructor":1,"__proto__":{"isAdmin":true}}') as unknown;
    const { errors, values } = readEntity(model, body, 'update');
    expect(errors.map((e) => `${e.code}:${e.path}:${e.type}`)).to.deep.equal([
      'UNKNOWN_FIELD:nmae:unknownField',
      'UNKNOWN_FIELD:constructor:unknownField',
      'UNKNOWN_FIELD:__proto__:unknownField',
    ]);
    expect(values).to.deep.equal({ name: 'Ann' });
    expect(Object.getPrototypeOf(values)).to.equal(Object.prototype);
  });

  it('collects every conversion failure as a typeError detail naming the field', () => {
    const { model } = setup();
    const { errors, values } = readEntity(model, { name: { first: 'A' }, age: '4.5', active: 'maybe' }, 'update');
    expect(errors).to.deep.equal([
      { code: 'INVALID_VALUE', path: 'name', type: 'typeError', message: 'Name must be a string' },
      { code: 'INVALID_VALUE', path: 'age', type: 'typeError', message: 'Age must be an integer' },
      { code: 'INVALID_VALUE', path: 'active', type: 'typeError', message: 'active must be true or false' },
    ]);
    expect(values).to.deep.equal({});
  });

  it('add: refuses a read-only field with a value, allows it empty', () => {
    const { model } = setup();
    expect(readEntity(model, { name: 'A', password: 'p', createdOn: '2024-01-01' }, 'add').errors).to.deep.equal([
      { code: 'READONLY_FIELD', path: 'createdOn', type: 'readonly', message: 'createdOn is read-only' },
    ]);
    const empty = readEntity(model, { name: 'A', password: 'p', createdOn: null }, 'add');
    expect(empty.errors).to.deep.equal([]);
    expect(empty.values.createdOn).to.equal(null);
  });

  it('update: refuses a read-only field with any value, null included', () => {
    const { model } = setup();
    for (const createdOn of ['2024-01-01', null]) {
      expect(readEntity(model, { createdOn }, 'update').errors.map((e) => e.code)).to.deep.equal(['READONLY_FIELD']);
    }
  });

  it('update: returns the primary key as key, not as a value, and fills nothing in', () => {
    const { model } = setup();
    const result = readEntity(model, { id: '7', age: 3 }, 'update');
    expect(result).to.deep.equal({ values: { age: 3 }, errors: [], key: 7 });
    expect(readEntity(model, { id: 'x' }, 'update').errors.map((e) => `${e.code}:${e.path}`)).to.deep.equal(['INVALID_VALUE:id']);
  });

  it('update: an empty password means "keep the stored one" and is left out', () => {
    const { model } = setup();
    expect(readEntity(model, { password: '' }, 'update').values).to.deep.equal({});
    expect(readEntity(model, { password: null }, 'update').values).to.deep.equal({});
    expect(readEntity(model, { password: 'new' }, 'update').values).to.deep.equal({ password: 'new' });
  });

  it('reports a body that is not an object', () => {
    const { model } = setup();
    for (const body of [null, [], 'x', 3]) {
      const result = readEntity(model, body, 'add');
      expect(result.errors.map((e) => e.code)).to.deep.equal(['INVALID_BODY']);
      expect(result.values).to.deep.equal({});
    }
  });
});
