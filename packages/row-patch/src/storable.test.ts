import { expect } from 'chai';
import { defineModel } from '@fw/core';
import { DIALECT_LIMITS, storageIssues, validateRow } from './index.js';

const Event = defineModel({
  name: 'Event',
  fields: {
    name: { edit: { title: 'Name' } },
    notes: { edit: { title: 'Notes', type: 'TEXTAREA' } },
    labels: { edit: { title: 'Labels', type: 'TAGS' } },
    day: { edit: { title: 'Day', type: 'DATE' } },
    at: { edit: { title: 'At', type: 'DATETIME' } },
    people: { edit: { title: 'People', type: 'COLLECTION', collection: { model: 'Person', joinTable: 'event_person', ownKey: 'event_id', foreignKey: 'person_id' } } },
  },
});

describe('storageIssues(model, row, dialect)', () => {
  it('refuses the NUL character in any text, on every dialect', () => {
    for (const dialect of [undefined, 'sqlite', 'postgres', 'mysql', 'mssql'] as const) {
      expect(storageIssues(Event, { name: 'a\u0000', notes: '\u0000', labels: ['ok', 'x\u0000'] }, dialect).map((d) => [d.path, d.type])).to.deep.equal([
        ['name', 'invalidCharacter'],
        ['notes', 'invalidCharacter'],
        ['labels', 'invalidCharacter'],
      ]);
    }
    expect(storageIssues(Event, { name: 'a\u0001b', notes: 'line\nbreak' })).to.deep.equal([]);
  });

  it('refuses half a surrogate pair, which every driver would store as another character', () => {
    expect(storageIssues(Event, { name: 'a\ud800b', labels: ['\udfff'] }).map((d) => [d.path, d.message])).to.deep.equal([
      ['name', 'Name must be valid Unicode text (it holds half of a surrogate pair)'],
      ['labels', 'Labels must be valid Unicode text (it holds half of a surrogate pair)'],
    ]);
    expect(storageIssues(Event, { name: 'emoji \ud83d\ude00 fine' })).to.deep.equal([]);
  });

  it('bounds dates by what the dialect stores: MySQL from the year 1000, the others from 0001', () => {
    const early = { day: '0001-01-01', at: '0999-12-31T23:59:59.999Z' };
    expect(storageIssues(Event, early, 'mysql').map((d) => [d.path, d.type])).to.deep.equal([
      ['day', 'min'],
      ['at', 'min'],
    ]);
    for (const dialect of ['sqlite', 'postgres', 'mssql'] as const) expect(storageIssues(Event, early, dialect), dialect).to.deep.equal([]);
    expect(storageIssues(Event, { day: '1000-01-01', at: '1000-01-01T00:00:00.000Z' }, 'mysql')).to.deep.equal([]);
    expect(storageIssues(Event, { day: '9999-12-31', at: '9999-12-31T23:59:59.999Z' }, 'mysql')).to.deep.equal([]);
    expect(storageIssues(Event, { day: '0999-12-31' }, 'mysql')[0]!.message).to.equal('Day must be 1000-01-01 or later (the database stores no earlier date)');
    expect(DIALECT_LIMITS.mysql.datetime.min).to.equal('1000-01-01T00:00:00.000Z');
  });

  it('refuses collection ids beyond the 32-bit key columns', () => {
    expect(storageIssues(Event, { people: [1, 2_147_483_647] })).to.deep.equal([]);
    expect(storageIssues(Event, { people: [1, 2_147_483_648] }).map((d) => [d.path, d.type])).to.deep.equal([['people', 'max']]);
  });
});

describe('validateRow(model, row, { dialect })', () => {
  it('adds what the database cannot store after the rules, once per field', async () => {
    expect(await validateRow(Event, { name: 'x\u0000', day: '0500-06-01' }, { dialect: 'mysql' })).to.deep.equal([
      { path: 'name', type: 'invalidCharacter', message: 'Name must not contain the NUL character' },
      { path: 'day', type: 'min', message: 'Day must be 1000-01-01 or later (the database stores no earlier date)' },
    ]);
    expect(await validateRow(Event, { day: '0500-06-01' })).to.deep.equal([]);
    // A field the rules already refuse is reported once, by its rule.
    const Short = defineModel({ name: 'Short', fields: { code: { edit: { title: 'Code' }, rules: [{ type: 'length', max: 2 }] } } });
    expect((await validateRow(Short, { code: 'abc\u0000' })).map((d) => d.type)).to.deep.equal(['max']);
  });
});
