import { expect } from 'chai';
import { defineModel } from '@fw/core';
import { coerceValue, toDbValues, toFormRow, validateRow } from '@fw/row-patch';

const Doc = defineModel({
  name: 'Doc',
  fields: {
    cover: { edit: { type: 'ATTACHMENT' } },
    files: { edit: { type: 'ATTACHMENT', attachment: { multiple: true, maxFiles: 2 } } },
  },
});
const file = (id: string) => ({ id, name: `${id}.pdf`, size: 10, type: 'application/pdf' });
const A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const C = 'cccccccccccccccccccccccc';

describe('ATTACHMENT values (coerceValue, storage, validateRow)', () => {
  it('takes an array or JSON text of file records, drops repeated ids, and keeps only id, name, size, type', () => {
    expect(coerceValue(Doc.fields.files!, [file(A), { ...file(B), extra: 'x' }, file(A)])).to.deep.equal({ ok: true, value: [file(A), file(B)] });
    expect(coerceValue(Doc.fields.files!, JSON.stringify([file(A)]))).to.deep.equal({ ok: true, value: [file(A)] });
    expect(coerceValue(Doc.fields.files!, null)).to.deep.equal({ ok: true, value: null });
  });

  it('refuses what is not a list of records with a server-shaped id, and more files than maxFiles', () => {
    for (const bad of ['x', 42, { id: A }, [{ id: '../../etc/passwd' }], [{ id: 'short' }], ['plain string'], [file(A), file(B), file(C)]]) {
      expect(coerceValue(Doc.fields.files!, bad).ok, JSON.stringify(bad)).to.equal(false);
    }
    expect(coerceValue(Doc.fields.cover!, [file(A), file(B)])).to.deep.equal({ ok: false, message: 'must hold at most 1 file' });
  });

  it('is stored as JSON text and read back as the array', () => {
    const db = toDbValues(Doc, { files: [file(A)] });
    expect(db).to.deep.equal({ files: JSON.stringify([file(A)]) });
    expect(toFormRow(Doc, { id: 1, cover: null, files: db.files })).to.deep.equal({ id: 1, cover: null, files: [file(A)] });
  });

  it('the row schema reports a malformed value on its field', async () => {
    const failures = await validateRow(Doc, { cover: [{ id: 'nope' }] });
    expect(failures.map((f) => f.path)).to.deep.equal(['cover']);
  });
});
