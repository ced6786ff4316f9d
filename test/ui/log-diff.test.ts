import { expect } from 'chai';
import { logDiff, parseLogged } from '../../packages/ui/app/src/model/logDiff.js';

describe('logDiff(action, beforeData, request) (issue 20 §7)', () => {
  it('shows an update field by field: the changed ones first, the rest as they were', () => {
    const lines = logDiff('update', JSON.stringify({ id: 3, title: 'Ubik', price: 9.5, stock: 2 }), JSON.stringify({ id: 3, changes: { price: 12 } }), new Set(), 'id');
    expect(lines).to.deep.equal([
      { field: 'price', before: 9.5, after: 12, changed: true, secret: false },
      { field: 'title', before: 'Ubik', after: 'Ubik', changed: false, secret: false },
      { field: 'stock', before: 2, after: 2, changed: false, secret: false },
    ]);
  });

  it('masks secrets on both sides, by field type and by name, even when the log holds them plain', () => {
    const lines = logDiff(
      'update',
      JSON.stringify({ pin: '1234', apiKey: 'k-old', name: 'a' }),
      JSON.stringify({ id: 1, changes: { pin: '9999', apiKey: 'k-new' } }),
      new Set(['pin']),
    );
    expect(lines?.filter((l) => l.secret).map((l) => [l.field, l.before, l.after, l.changed])).to.deep.equal([
      ['pin', '******', '******', true],
      ['apiKey', '******', '******', true],
    ]);
    expect(JSON.stringify(lines)).to.not.contain('9999').and.not.contain('k-new').and.not.contain('1234');
  });

  it('reads an add, a copy and a delete; anything else has no field-by-field shape', () => {
    expect(logDiff('add', null, JSON.stringify({ title: 'Dune' }))).to.deep.equal([{ field: 'title', before: undefined, after: 'Dune', changed: true, secret: false }]);
    expect(logDiff('copy', null, JSON.stringify({ from: 1, values: { title: 'Dune 2' } }))?.[0]).to.include({ after: 'Dune 2', changed: true });
    expect(logDiff('delete', JSON.stringify({ title: 'Old' }), JSON.stringify({ ids: [1] }))?.[0]).to.include({ before: 'Old', after: undefined, changed: true });
    expect(logDiff('import', null, JSON.stringify({ format: 'csv', rows: 3 }))).to.equal(undefined);
    // A logged row cut short by the size cap is no JSON: shown as recorded instead.
    expect(logDiff('update', '{"title":"abc…', JSON.stringify({ id: 1, changes: { title: 'x' } }))?.[0]).to.include({ before: undefined, after: 'x' });
    expect(parseLogged('{"cut')).to.equal('{"cut');
    expect(parseLogged(null)).to.equal(undefined);
  });
});
