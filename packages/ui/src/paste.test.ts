import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';

// Issue 23 §2: pasting a block copied from a spreadsheet (pure code of
// packages/ui/app/src/model/paste.ts, loaded by path: the app has its own tsconfig).
const PASTE = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'src', 'model', 'paste.ts');

type Field = { name: string; type: string; integer?: boolean; notNull?: boolean; choices?: Array<{ value: unknown; label: string; labels?: Record<string, string> }> };
interface Paste {
  parseClipboard(text: string): string[][];
  fromText(field: Field, text: string): { value: unknown } | { problem: string };
  planPaste(
    grid: string[][],
    rowKeys: string[],
    columns: string[],
    fields: Field[],
    editable: (f: Field) => boolean,
    shown?: (rowKey: string, field: string) => unknown,
  ): {
    rows: Array<{ id: number; values: Record<string, unknown>; expect?: Record<string, unknown> }>;
    cells: Array<{ row: number; col: number; problem?: string; value?: unknown }>;
    cutRows: number;
    cutColumns: number;
    problems: number;
  };
}

const f = (name: string, type: string, extra: Partial<Field> = {}): Field => ({ name, type, ...extra });

describe('UI paste from a spreadsheet (paste.ts)', () => {
  let paste: Paste;
  before(async () => {
    paste = (await import(pathToFileURL(PASTE).href)) as Paste;
  });

  it('reads tab-separated rows, quoted cells with tabs, line breaks and quotes, and no phantom last row', () => {
    expect(paste.parseClipboard('a\tb\r\nc\td\r\n')).to.deep.equal([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(paste.parseClipboard('"line 1\nline 2"\t"say ""hi"""\tplain\n')).to.deep.equal([['line 1\nline 2', 'say "hi"', 'plain']]);
    expect(paste.parseClipboard('x\t\ty')).to.deep.equal([['x', '', 'y']]);
    // A quote that opens ordinary text is text.
    expect(paste.parseClipboard('"quoted" tail\tz')).to.deep.equal([['"quoted" tail', 'z']]);
    expect(paste.parseClipboard('')).to.deep.equal([]);
  });

  it('reads each text by the target field type, and says why one cannot be read', () => {
    expect(paste.fromText(f('n', 'NUMBER'), ' 1,234.5 ')).to.deep.equal({ value: 1234.5 });
    expect(paste.fromText(f('n', 'NUMBER', { integer: true }), '2.5')).to.deep.equal({ problem: 'integer' });
    expect(paste.fromText(f('n', 'NUMBER'), 'abc')).to.deep.equal({ problem: 'number' });
    expect(paste.fromText(f('b', 'BOOLEAN'), '是')).to.deep.equal({ value: true });
    expect(paste.fromText(f('b', 'BOOLEAN'), 'FALSE')).to.deep.equal({ value: false });
    expect(paste.fromText(f('b', 'BOOLEAN'), 'maybe')).to.deep.equal({ problem: 'boolean' });
    expect(paste.fromText(f('d', 'DATE'), '2024/1/5')).to.deep.equal({ value: '2024-01-05' });
    expect(paste.fromText(f('d', 'DATE'), '2024-02-30')).to.deep.equal({ problem: 'date' });
    expect(paste.fromText(f('d', 'DATE'), '05/01/2024')).to.deep.equal({ problem: 'date' });
    const c = f('g', 'CHOICE', { choices: [{ value: 'novel', label: 'Novel', labels: { 'zh-CN': '小说' } }] });
    expect(paste.fromText(c, '小说')).to.deep.equal({ value: 'novel' });
    expect(paste.fromText(c, 'novel')).to.deep.equal({ value: 'novel' });
    expect(paste.fromText(c, 'poem')).to.deep.equal({ problem: 'choice' });
    expect(paste.fromText(f('t', 'TAGS'), 'a, b，c')).to.deep.equal({ value: ['a', 'b', 'c'] });
    expect(paste.fromText(f('r', 'REFERENCE_TABLE'), '#12')).to.deep.equal({ value: 12 });
    expect(paste.fromText(f('r', 'REFERENCE_TABLE'), 'Alice')).to.deep.equal({ problem: 'reference' });
    expect(paste.fromText(f('s', 'INPUT', { notNull: true }), '  ')).to.deep.equal({ problem: 'required' });
    expect(paste.fromText(f('s', 'INPUT'), '')).to.deep.equal({ value: null });
  });

  it('lays the block from the focused cell, marks what cannot be pasted, and counts what fell off the edge', () => {
    const fields = [f('title', 'INPUT'), f('price', 'NUMBER'), f('id', 'NUMBER', { integer: true })];
    const editable = (x: Field) => x.name !== 'id';
    const plan = paste.planPaste(
      [
        ['Dune', '12', '5'],
        ['Emma', 'cheap', '6'],
        ['Ulysses', '30', '7'],
      ],
      ['4', '9'],
      ['title', 'price', 'id'],
      fields,
      editable,
    );
    expect(plan.rows).to.deep.equal([
      { id: 4, values: { title: 'Dune', price: 12 } },
      { id: 9, values: { title: 'Emma' } },
    ]);
    expect(plan.cells.filter((c) => c.problem).map((c) => [c.row, c.col, c.problem])).to.deep.equal([
      [0, 2, 'notEditable'],
      [1, 1, 'number'],
      [1, 2, 'notEditable'],
    ]);
    expect(plan.problems).to.equal(3);
    expect(plan.cutRows).to.equal(1);
    const narrow = paste.planPaste([['a', 'b', 'c']], ['1'], ['title'], fields, editable);
    expect(narrow.cutColumns).to.equal(2);
    expect(narrow.rows).to.deep.equal([{ id: 1, values: { title: 'a' } }]);
  });

  it('each row expects what the table shows in the cells it pastes over, and only those (issue 24 §1)', () => {
    const fields: Field[] = [
      { name: 'title', type: 'INPUT' },
      { name: 'price', type: 'NUMBER' },
      { name: 'id', type: 'NUMBER' },
    ];
    const table: Record<string, Record<string, unknown>> = { '4': { title: 'Dune', price: 9.5, id: 4 }, '9': { title: 'Emma', id: 9 } };
    const plan = paste.planPaste(
      [
        ['Dune II', '12', '5'],
        ['Emma', 'cheap', '6'],
      ],
      ['4', '9'],
      ['title', 'price', 'id'],
      fields,
      (f) => f.name !== 'id',
      (key, field) => table[key]?.[field],
    );
    // Not the read-only id, not a cell that does not read; a cell the table shows empty expects null.
    expect(plan.rows).to.deep.equal([
      { id: 4, values: { title: 'Dune II', price: 12 }, expect: { title: 'Dune', price: 9.5 } },
      { id: 9, values: { title: 'Emma' }, expect: { title: 'Emma' } },
    ]);
    const blank = paste.planPaste(
      [['x', '3']],
      ['9'],
      ['title', 'price'],
      fields,
      () => true,
      (key, field) => table[key]?.[field],
    );
    expect(blank.rows[0]!.expect).to.deep.equal({ title: 'Emma', price: null });
  });
});
