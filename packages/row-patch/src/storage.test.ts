import { expect } from 'chai';
import { defineModel } from '@fw/core';
import { changedColumns, toDbValues, toFormRow } from './index.js';

/** A model with one field of every edit type, and columns that differ from field names. */
function everyTypeModel() {
  return defineModel({
    name: 'Everything',
    table: 'everything',
    fields: {
      title: { column: 'title_text', edit: { type: 'INPUT' } },
      notes: { edit: { type: 'TEXTAREA' } },
      secret: { edit: { type: 'PASSWORD' } },
      code: { edit: { type: 'HIDDEN' } },
      price: { edit: { type: 'NUMBER' } },
      qty: { edit: { type: 'NUMBER', integer: true } },
      active: { column: 'is_active', edit: { type: 'BOOLEAN' } },
      level: { edit: { type: 'CHOICE', choices: [{ value: 1 }, { value: 2 }] } },
      colours: { edit: { type: 'MULTI_CHOICE', choices: [{ value: 'red' }, { value: 'blue' }] } },
      labels: { edit: { type: 'TAGS' } },
      day: { column: 'the_day', edit: { type: 'DATE' } },
      at: { edit: { type: 'DATETIME' } },
      ownerId: { column: 'owner_id', edit: { type: 'REFERENCE_TABLE', reference: { model: 'FwUser' } } },
      parentId: { column: 'parent_id', edit: { type: 'REFERENCE_TREE', reference: { model: 'Everything' } } },
      roles: { edit: { type: 'COLLECTION', collection: { model: 'FwRole', joinTable: 'everything_role', ownKey: 'everything_id', foreignKey: 'role_id' } } },
    },
  });
}

function setup() {
  const model = everyTypeModel();
  const form = {
    id: 9,
    title: 'Widget',
    notes: 'line 1\nline 2',
    code: 'W-1',
    price: 12.5,
    qty: 3,
    active: true,
    level: 2,
    colours: ['red', 'blue'],
    labels: ['x', 'y'],
    day: '2024-03-05',
    at: '2024-03-05T10:20:30.123Z',
    ownerId: 4,
    parentId: 1,
  };
  return { model, form };
}

/** What each driver hands back for the values knex wrote (see toDbValues). */
const drivers = {
  sqlite: (db: Record<string, unknown>) => ({ ...db, is_active: db.is_active ? 1 : 0, at: (db.at as Date).getTime() }),
  postgres: (db: Record<string, unknown>) => ({
    ...db,
    id: '9', // bigint / bigserial
    price: '12.50', // numeric
    the_day: new Date(2024, 2, 5), // node-postgres: DATE at local midnight
    colours: JSON.parse(String(db.colours)), // json column: already parsed
  }),
  mysql: (db: Record<string, unknown>) => ({ ...db, is_active: Buffer.from([1]), the_day: new Date(2024, 2, 5), owner_id: 4n }),
  mssql: (db: Record<string, unknown>) => ({ ...db, the_day: new Date(Date.UTC(2024, 2, 5)) }),
};

describe('toDbValues(model, formValues)', () => {
  it('keys by column and gives knex-ready values', () => {
    const { model, form } = setup();
    const db = toDbValues(model, { ...form, secret: 'plain', roles: [1, 2] });
    expect(db).to.deep.equal({
      id: 9,
      title_text: 'Widget',
      notes: 'line 1\nline 2',
      secret: 'plain',
      code: 'W-1',
      price: 12.5,
      qty: 3,
      is_active: true,
      level: 2,
      colours: '["red","blue"]',
      labels: '["x","y"]',
      the_day: '2024-03-05',
      at: new Date('2024-03-05T10:20:30.123Z'),
      owner_id: 4,
      parent_id: 1,
    });
    expect(db.at).to.be.instanceOf(Date);
    expect(db).not.to.have.property('roles');
  });

  it('keeps nulls, skips undefined values and unknown names', () => {
    const { model } = setup();
    expect(toDbValues(model, { title: null, labels: null, at: null, day: undefined, bogus: 1 })).to.deep.equal({ title_text: null, labels: null, at: null });
  });
});

describe('toFormRow(model, dbRow)', () => {
  for (const [name, driver] of Object.entries(drivers)) {
    it(`round-trips every edit type through ${name}-shaped values`, () => {
      const { model, form } = setup();
      const stored = driver(toDbValues(model, { ...form, secret: 'hash' }));
      expect(toFormRow(model, stored)).to.deep.equal(form);
    });
  }

  it('never returns a password and leaves collection fields out', () => {
    const { model } = setup();
    const row = toFormRow(model, { id: 1, secret: 'scrypt$...', roles: '[1]' });
    expect(row).to.deep.equal({ id: 1 });
    expect(row).not.to.have.property('secret');
  });

  it('reads driver booleans: 0/1, "0"/"1", one-byte buffers, bigint, true/false', () => {
    const { model } = setup();
    const read = (value: unknown) => toFormRow(model, { is_active: value }).active;
    expect([1, 0, '1', '0', Buffer.from([1]), Buffer.from([0]), 1n, 0n, true, false].map(read)).to.deep.equal([true, false, true, false, true, false, true, false, true, false]);
  });

  it('reads dates from Date objects, date-time text and epoch milliseconds', () => {
    const { model } = setup();
    const day = (value: unknown) => toFormRow(model, { the_day: value }).day;
    expect(day(new Date(Date.UTC(2024, 0, 31)))).to.equal('2024-01-31');
    expect(day(new Date(2024, 0, 31))).to.equal('2024-01-31');
    expect(day('2024-01-31')).to.equal('2024-01-31');
    expect(day('2024-01-31 00:00:00')).to.equal('2024-01-31');
    expect(day('2024-01-31T00:00:00.000Z')).to.equal('2024-01-31');
    expect(day(Date.UTC(2024, 0, 31))).to.equal('2024-01-31');
    const at = (value: unknown) => toFormRow(model, { at: value }).at;
    expect(at(new Date('2024-01-31T08:00:00Z'))).to.equal('2024-01-31T08:00:00.000Z');
    expect(at(Date.UTC(2024, 0, 31, 8))).to.equal('2024-01-31T08:00:00.000Z');
    expect(at(String(Date.UTC(2024, 0, 31, 8)))).to.equal('2024-01-31T08:00:00.000Z');
    expect(at('2024-01-31 08:00:00')).to.equal('2024-01-31T08:00:00.000Z');
  });

  it('reads a DATE built at local midnight in a zone west of UTC as that local date', () => {
    const previous = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      const { model } = setup();
      const localMidnight = new Date(2024, 2, 5); // what node-postgres builds for DATE '2024-03-05'
      expect(localMidnight.toISOString()).to.equal('2024-03-05T05:00:00.000Z');
      expect(toFormRow(model, { the_day: localMidnight }).day).to.equal('2024-03-05');
      expect(toFormRow(model, { the_day: new Date(Date.UTC(2024, 2, 5)) }).day).to.equal('2024-03-05');
    } finally {
      if (previous === undefined) delete process.env.TZ;
      else process.env.TZ = previous;
    }
  });

  it('keeps a stored value the type cannot convert, so validation reports it instead of the read failing', () => {
    const { model } = setup();
    expect(toFormRow(model, { level: 7, labels: 'not json' })).to.deep.equal({ level: 7, labels: 'not json' });
  });

  it('does not invent columns the query did not select', () => {
    const { model } = setup();
    expect(toFormRow(model, { title_text: 'x', unrelated: 1 })).to.deep.equal({ title: 'x' });
  });
});

describe('changedColumns(model, storedFormRow, nextFormRow)', () => {
  it('returns only the differing stored fields, keyed by column', () => {
    const { model, form } = setup();
    const next = { ...form, title: 'Gadget', labels: ['x', 'y', 'z'], colours: ['red', 'blue'], roles: [1] };
    expect(changedColumns(model, form, next)).to.deep.equal({ title_text: 'Gadget', labels: '["x","y","z"]' });
  });

  it('returns nothing for an identical row, and treats null as a change from a value', () => {
    const { model, form } = setup();
    expect(changedColumns(model, form, { ...form, labels: [...form.labels] })).to.deep.equal({});
    expect(changedColumns(model, form, { ...form, day: null, active: false })).to.deep.equal({ the_day: null, is_active: false });
  });

  it('writes a date-time change as a Date', () => {
    const { model, form } = setup();
    expect(changedColumns(model, form, { ...form, at: '2025-01-01T00:00:00.000Z' })).to.deep.equal({ at: new Date('2025-01-01T00:00:00.000Z') });
  });
});
