import { expect } from 'chai';
import { defineModel, type FieldDefinition, type FieldDefinitionInput } from '@fw/core';
import { calendarDateOf, coerceValue } from './index.js';

function field(input: FieldDefinitionInput): FieldDefinition {
  const model = defineModel({ name: 'Probe', fields: { probe: input } });
  const probe = model.fields.probe;
  if (!probe) throw new Error('probe field missing');
  return probe;
}

type Case = readonly [input: unknown, expected: unknown];

function expectConversions(definition: FieldDefinition, good: readonly Case[], bad: readonly unknown[]): void {
  for (const [input, expected] of good) {
    const result = coerceValue(definition, input);
    expect(result, `${definition.edit.type} ${JSON.stringify(input)}`).to.deep.equal({ ok: true, value: expected });
  }
  for (const input of bad) {
    const result = coerceValue(definition, input);
    expect(result.ok, `${definition.edit.type} should refuse ${String(input)}`).to.equal(false);
    if (!result.ok) expect(result.message).to.match(/^must /);
  }
}

const EMPTY: readonly Case[] = [
  [null, null],
  [undefined, null],
  ['', null],
];

describe('coerceValue(field, value)', () => {
  it('turns null, undefined and the empty string into null for every edit type', () => {
    const definitions: FieldDefinitionInput[] = [
      { edit: { type: 'INPUT' } },
      { edit: { type: 'TEXTAREA' } },
      { edit: { type: 'PASSWORD' } },
      { edit: { type: 'HIDDEN' } },
      { edit: { type: 'HIDDEN', integer: true } },
      { edit: { type: 'NUMBER' } },
      { edit: { type: 'BOOLEAN' } },
      { edit: { type: 'CHOICE', choices: [{ value: 'a' }] } },
      { edit: { type: 'MULTI_CHOICE', choices: [{ value: 'a' }] } },
      { edit: { type: 'TAGS' } },
      { edit: { type: 'DATE' } },
      { edit: { type: 'DATETIME' } },
      { edit: { type: 'REFERENCE_TABLE', reference: { model: 'Other' } } },
      { edit: { type: 'REFERENCE_TREE', reference: { model: 'Other' } } },
      { edit: { type: 'COLLECTION', collection: { model: 'Other', joinTable: 'j', ownKey: 'a', foreignKey: 'b' } } },
    ];
    for (const input of definitions) expectConversions(field(input), EMPTY, []);
  });

  it('INPUT, TEXTAREA, PASSWORD and HIDDEN: strings, numbers and booleans as text; objects and arrays refused', () => {
    for (const type of ['INPUT', 'TEXTAREA', 'PASSWORD', 'HIDDEN'] as const) {
      expectConversions(
        field({ edit: { type } }),
        [
          ['hello', 'hello'],
          ['  spaced  ', '  spaced  '],
          [12, '12'],
          [1.5, '1.5'],
          [true, 'true'],
          [false, 'false'],
        ],
        [{}, [], ['a'], { a: 1 }, Number.NaN, Number.POSITIVE_INFINITY, () => 1],
      );
    }
  });

  it('NUMBER: finite numbers and numeric strings (CSV), never text, NaN or Infinity', () => {
    expectConversions(
      field({ edit: { type: 'NUMBER' } }),
      [
        [12, 12],
        [-1.25, -1.25],
        ['12.50', 12.5],
        [' 3 ', 3],
        ['-0.5', -0.5],
        ['.5', 0.5],
        ['1e3', 1000],
        [-0, 0],
      ],
      ['abc', '12abc', '0x10', '1,5', Number.NaN, Number.POSITIVE_INFINITY, 'Infinity', 'NaN', true, [], {}, [1]],
    );
  });

  it('NUMBER with integer (and HIDDEN with integer) refuses fractions', () => {
    for (const type of ['NUMBER', 'HIDDEN'] as const) {
      expectConversions(
        field({ edit: { type, integer: true } }),
        [
          [7, 7],
          ['7', 7],
          ['7.0', 7],
          [-3, -3],
        ],
        [7.5, '7.5', 'x', 2 ** 60],
      );
    }
    expect(coerceValue(field({ edit: { type: 'NUMBER', integer: true } }), 7.5)).to.deep.equal({ ok: false, message: 'must be an integer' });
  });

  it('BOOLEAN: true/false, their text, 1/0 and their text', () => {
    expectConversions(
      field({ edit: { type: 'BOOLEAN' } }),
      [
        [true, true],
        [false, false],
        ['true', true],
        ['false', false],
        ['TRUE', true],
        [1, true],
        [0, false],
        ['1', true],
        ['0', false],
      ],
      ['yes', 'no', 2, -1, 'on', [], {}],
    );
  });

  it('CHOICE: matches a declared choice as text and returns the choice in its own type', () => {
    const numeric = field({ edit: { type: 'CHOICE', choices: [{ value: 1 }, { value: 2 }] } });
    expectConversions(
      numeric,
      [
        [2, 2],
        ['2', 2],
        ['2.0', 2],
        ['1', 1],
      ],
      [3, '3', 'two', true, [2], { value: 2 }],
    );
    const text = field({ edit: { type: 'CHOICE', choices: [{ value: 'draft' }, { value: '10' }] } });
    expectConversions(
      text,
      [
        ['draft', 'draft'],
        [10, '10'],
      ],
      ['Draft', 'published', 11],
    );
    const flags = field({ edit: { type: 'CHOICE', choices: [{ value: true }, { value: false }] } });
    expectConversions(
      flags,
      [
        ['true', true],
        [false, false],
      ],
      ['yes'],
    );
  });

  it('MULTI_CHOICE: arrays or JSON-array text of choices, deduplicated, in the choices’ type', () => {
    expectConversions(
      field({ edit: { type: 'MULTI_CHOICE', choices: [{ value: 'a' }, { value: 'b' }, { value: 3 }] } }),
      [
        [
          ['a', 'b'],
          ['a', 'b'],
        ],
        ['["a","b"]', ['a', 'b']],
        [' ["b"] ', ['b']],
        [
          ['b', 'a', 'b'],
          ['b', 'a'],
        ],
        [['3'], [3]],
        [[], []],
        ['[]', []],
      ],
      [['a', 'z'], 'a', 'a,b', '["a",', '{"a":1}', 7, [null], [['a']]],
    );
  });

  it('TAGS: arrays or JSON-array text of non-empty strings', () => {
    expectConversions(
      field({ edit: { type: 'TAGS' } }),
      [
        [
          ['x', 'y'],
          ['x', 'y'],
        ],
        ['["x","y"]', ['x', 'y']],
        [['x', 'x'], ['x']],
        [
          [1, 'y'],
          ['1', 'y'],
        ],
        [[], []],
      ],
      ['x', 'x,y', [''], [null], [{}], [['x']], 12, '["x"'],
    );
  });

  it('DATE: YYYY-MM-DD naming a real calendar date', () => {
    expectConversions(
      field({ edit: { type: 'DATE' } }),
      [
        ['2024-03-05', '2024-03-05'],
        [' 2024-02-29 ', '2024-02-29'],
        ['2000-02-29', '2000-02-29'],
        [new Date(Date.UTC(2024, 2, 5)), '2024-03-05'],
      ],
      ['2023-02-29', '1900-02-29', '2024-13-01', '2024-04-31', '2024-00-10', '2024-3-5', '05/03/2024', '2024-03-05T10:00:00Z', 20240305, new Date(Number.NaN)],
    );
  });

  it('DATETIME: ISO 8601 normalized to toISOString(); zone-less text is UTC', () => {
    expectConversions(
      field({ edit: { type: 'DATETIME' } }),
      [
        ['2024-03-05T10:20:30Z', '2024-03-05T10:20:30.000Z'],
        ['2024-03-05T10:20:30.123456Z', '2024-03-05T10:20:30.123Z'],
        ['2024-03-05T12:20+02:00', '2024-03-05T10:20:00.000Z'],
        ['2024-03-05T05:20:30-0500', '2024-03-05T10:20:30.000Z'],
        ['2024-03-05 10:20:30', '2024-03-05T10:20:30.000Z'],
        ['2024-03-05', '2024-03-05T00:00:00.000Z'],
        [new Date('2024-03-05T10:20:30Z'), '2024-03-05T10:20:30.000Z'],
      ],
      ['yesterday', '2024-02-30T10:00:00Z', '2024-03-05T25:00:00Z', '2024-03-05T10:61Z', 'Tue Mar 05 2024', 1709634030000, true, {}],
    );
  });

  it('REFERENCE_TABLE and REFERENCE_TREE: positive integer ids or their digits', () => {
    for (const type of ['REFERENCE_TABLE', 'REFERENCE_TREE'] as const) {
      expectConversions(
        field({ edit: { type, reference: { model: 'Other' } } }),
        [
          [5, 5],
          ['5', 5],
          [' 42 ', 42],
        ],
        [0, -1, 1.5, '1.5', '-3', 'abc', true, [1], 2 ** 60],
      );
    }
  });

  it('COLLECTION: arrays (or JSON-array text) of positive integer ids, deduplicated and sorted', () => {
    expectConversions(
      field({ edit: { type: 'COLLECTION', collection: { model: 'Other', joinTable: 'j', ownKey: 'a', foreignKey: 'b' } } }),
      [
        [
          [3, 1, 2],
          [1, 2, 3],
        ],
        [
          ['2', 2, 1],
          [1, 2],
        ],
        ['[5,4]', [4, 5]],
        [[], []],
      ],
      [[0], [-1], [1.5], ['x'], 5, '5', [null], '[1,'],
    );
  });
});

describe('calendarDateOf(date)', () => {
  it('uses the UTC date at UTC midnight and the local date otherwise', () => {
    expect(calendarDateOf(new Date(Date.UTC(2024, 0, 31)))).to.equal('2024-01-31');
    // Local noon is never UTC midnight, whatever the zone: its local date wins.
    expect(calendarDateOf(new Date(2024, 0, 31, 12, 0, 0))).to.equal('2024-01-31');
  });
});
