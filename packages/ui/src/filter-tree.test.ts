import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';

// Issue 23 §1: the filter builder's rules (pure code of packages/ui/app/src/model/filterTree.ts,
// loaded by path: the app has its own tsconfig). What a filter sends, what a URL or saved view may
// bring back, and which operators each field type is offered.
const TREE = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'src', 'model', 'filterTree.ts');

type Rule = { field: string; op: string; value?: unknown };
type Group = { join: 'and' | 'or'; items: Array<Rule | Group> };
interface Tree {
  filterConditions(filter: Group | undefined): unknown[];
  countRules(filter: Group | undefined): number;
  readFilter(raw: unknown): Group | undefined;
  missingFields(filter: Group | undefined, fields: Array<{ name: string }>): string[];
  opsFor(field: { type: string; integer?: boolean }): string[];
  ruleReady(rule: Rule): boolean;
  filterOfConditions(nodes: unknown): Group | undefined;
}

describe('UI filter builder rules (filterTree.ts)', () => {
  let tree: Tree;
  before(async () => {
    tree = (await import(pathToFileURL(TREE).href)) as Tree;
  });

  it('sends a top-level AND as plain conditions and an OR (or a nested group) as a group', () => {
    const and: Group = {
      join: 'and',
      items: [
        { field: 'title', op: 'like', value: ' dune ' },
        { field: 'price', op: 'between', value: [1, 9] },
      ],
    };
    expect(tree.filterConditions(and)).to.deep.equal([
      { field: 'title', op: 'like', value: 'dune' },
      { field: 'price', op: 'between', value: [1, 9] },
    ]);
    const or: Group = {
      join: 'or',
      items: [
        { field: 'genre', op: 'eq', value: 'novel' },
        {
          join: 'and',
          items: [
            { field: 'price', op: 'lt', value: 5 },
            { field: 'note', op: 'isNull' },
          ],
        },
      ],
    };
    expect(tree.filterConditions(or)).to.deep.equal([
      {
        or: [
          { field: 'genre', op: 'eq', value: 'novel' },
          {
            and: [
              { field: 'price', op: 'lt', value: 5 },
              { field: 'note', op: 'isNull' },
            ],
          },
        ],
      },
    ]);
    expect(tree.countRules(or)).to.equal(3);
  });

  it('leaves out half-typed rules and empty groups instead of sending them', () => {
    const half: Group = {
      join: 'or',
      items: [
        { field: 'title', op: 'like', value: '   ' },
        { field: 'price', op: 'between', value: [1, null] },
        { field: 'tags', op: 'in', value: [] },
        { join: 'and', items: [] },
        { field: 'genre', op: 'eq', value: 'essay' },
      ],
    };
    // One complete rule left: sent on its own, not as a one-member OR.
    expect(tree.filterConditions(half)).to.deep.equal([{ field: 'genre', op: 'eq', value: 'essay' }]);
    expect(tree.countRules(half)).to.equal(1);
    expect(tree.filterConditions({ join: 'and', items: [] })).to.deep.equal([]);
    expect(tree.filterConditions(undefined)).to.deep.equal([]);
  });

  it('reads back only well-formed filters from an address or a saved view', () => {
    expect(tree.readFilter({ join: 'xor', items: [] })).to.equal(undefined);
    expect(tree.readFilter([1, 2])).to.equal(undefined);
    expect(tree.readFilter('x')).to.equal(undefined);
    const read = tree.readFilter({
      join: 'or',
      items: [{ field: 'a', op: 'drop table' }, { field: 'b', op: 'ne', value: 1, extra: true }, 7, { join: 'and', items: [{ field: 'c', op: 'isNull' }] }],
    });
    expect(read).to.deep.equal({
      join: 'or',
      items: [
        { field: 'b', op: 'ne', value: 1 },
        { join: 'and', items: [{ field: 'c', op: 'isNull' }] },
      ],
    });
    // Deeper than three levels is dropped.
    const deep = { join: 'and', items: [{ join: 'and', items: [{ join: 'and', items: [{ join: 'and', items: [{ field: 'x', op: 'eq', value: 1 }] }] }] }] };
    expect(JSON.stringify(tree.readFilter(deep))).to.not.include('"x"');
  });

  it('names the fields a filter uses that the model no longer has', () => {
    const filter: Group = {
      join: 'and',
      items: [
        { field: 'gone', op: 'eq', value: 1 },
        {
          join: 'or',
          items: [
            { field: 'title', op: 'like', value: 'a' },
            { field: 'old', op: 'isNull' },
          ],
        },
      ],
    };
    expect(tree.missingFields(filter, [{ name: 'title' }])).to.deep.equal(['gone', 'old']);
  });

  it('offers each type the operators that fit it', () => {
    expect(tree.opsFor({ type: 'INPUT' })).to.include.members(['like', 'startsWith', 'in', 'notIn', 'isNull']);
    expect(tree.opsFor({ type: 'NUMBER' }))
      .to.include('between')
      .and.not.include('like');
    expect(tree.opsFor({ type: 'NUMBER', integer: true })).to.include.members(['between', 'in', 'notIn']);
    expect(tree.opsFor({ type: 'BOOLEAN' })).to.deep.equal(['eq', 'ne', 'isNull', 'notNull']);
    expect(tree.opsFor({ type: 'TAGS' })).to.deep.equal(['like', 'isNull', 'notNull']);
    expect(tree.opsFor({ type: 'REFERENCE_TABLE' })).to.not.include('like');
    expect(tree.ruleReady({ field: 'x', op: 'notNull' })).to.equal(true);
    expect(tree.ruleReady({ field: '', op: 'notNull' })).to.equal(false);
  });

  it('turns a saved view’s conditions back into a filter that sends the same conditions', () => {
    const conditions = [
      { field: 'title', op: 'like', value: 'a' },
      {
        or: [
          { field: 'genre', value: 'novel' },
          {
            and: [
              { field: 'price', op: 'lt', value: 5 },
              { field: 'x', op: 'nonsense' },
            ],
          },
        ],
      },
    ];
    const filter = tree.filterOfConditions(conditions)!;
    expect(filter.join).to.equal('and');
    // op defaults to eq, as on the server; an unknown operator is dropped.
    expect(tree.filterConditions(filter)).to.deep.equal([
      { field: 'title', op: 'like', value: 'a' },
      {
        or: [
          { field: 'genre', op: 'eq', value: 'novel' },
          { field: 'price', op: 'lt', value: 5 },
        ],
      },
    ]);
    expect(tree.filterOfConditions([])).to.equal(undefined);
    expect(tree.filterOfConditions('x')).to.equal(undefined);
  });
});
