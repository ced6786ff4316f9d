import { expect } from 'chai';
import { EditType, FwDefinitionError, IMAGE_TYPES, defineModel, type FieldEdit } from '@fw/core';

function fieldOf(edit: FieldEdit) {
  return defineModel({ name: 'Doc', fields: { title: {}, file: { edit } } }).fields.file!;
}

function definitionError(edit: FieldEdit): FwDefinitionError {
  try {
    fieldOf(edit);
  } catch (error) {
    expect(error).to.be.instanceOf(FwDefinitionError);
    return error as FwDefinitionError;
  }
  throw new Error('expected a definition error');
}

describe('defineModel: ATTACHMENT fields', () => {
  it('fills in the defaults: one file of at most 10 MiB, any type, not sortable, no cell edit', () => {
    const field = fieldOf({ type: 'ATTACHMENT' });
    expect(field.edit.type).to.equal(EditType.ATTACHMENT);
    expect(field.edit.attachment).to.deep.equal({ multiple: false, image: false, maxSize: 10 * 1024 * 1024, maxFiles: 1, accept: [] });
    expect(field.views.sortable).to.equal(false);
    expect(field.edit.cellEdit).to.equal(false);
    expect(field.stored).to.equal(true);
  });

  it('multiple allows 10 files by default; image accepts the four image types', () => {
    expect(fieldOf({ type: 'ATTACHMENT', attachment: { multiple: true } }).edit.attachment?.maxFiles).to.equal(10);
    expect(fieldOf({ type: 'ATTACHMENT', attachment: { image: true } }).edit.attachment?.accept).to.deep.equal([...IMAGE_TYPES]);
    expect(fieldOf({ type: 'ATTACHMENT', attachment: { accept: ['Application/PDF', '.DOCX', 'image/*'] } }).edit.attachment?.accept).to.deep.equal([
      'application/pdf',
      '.docx',
      'image/*',
    ]);
  });

  const refused: Array<[string, FieldEdit, string, RegExp]> = [
    ['an unknown option', { type: 'ATTACHMENT', attachment: { max: 3 } as never }, 'Doc.fields.file.edit.attachment.max', /unknown attachment option/],
    ['a zero maxSize', { type: 'ATTACHMENT', attachment: { maxSize: 0 } }, 'Doc.fields.file.edit.attachment.maxSize', /positive integer/],
    ['a fractional maxFiles', { type: 'ATTACHMENT', attachment: { multiple: true, maxFiles: 2.5 } }, 'Doc.fields.file.edit.attachment.maxFiles', /positive integer/],
    ['several files without multiple', { type: 'ATTACHMENT', attachment: { maxFiles: 3 } }, 'Doc.fields.file.edit.attachment.maxFiles', /multiple: true/],
    ['an empty accept', { type: 'ATTACHMENT', attachment: { accept: [] } }, 'Doc.fields.file.edit.attachment.accept', /non-empty array/],
    ['a malformed accept entry', { type: 'ATTACHMENT', attachment: { accept: ['pdf'] } }, 'Doc.fields.file.edit.attachment.accept[0]', /MIME type/],
    [
      'a non-image type on an image field',
      { type: 'ATTACHMENT', attachment: { image: true, accept: ['application/pdf'] } },
      'Doc.fields.file.edit.attachment.accept[0]',
      /only image types/,
    ],
    ['attachment options on another type', { type: 'INPUT', attachment: {} }, 'Doc.fields.file.edit.attachment', /only ATTACHMENT fields/],
    ['a cell editor', { type: 'ATTACHMENT', cellEdit: true }, 'Doc.fields.file.edit.cellEdit', /cannot be edited in a cell/],
  ];
  for (const [what, edit, key, text] of refused) {
    it(`refuses ${what}`, () => {
      const error = definitionError(edit);
      expect(error.key).to.equal(key);
      expect(error.message).to.match(text);
    });
  }
});
