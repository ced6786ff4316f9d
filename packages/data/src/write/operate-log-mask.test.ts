import { expect } from 'chai';
import fc from 'fast-check';
import { defineModel, type ModelDefinition } from '@fw/core';
import { MASK, maskForLog } from './operate-log.js';

/** maskForLog as first written: always the masking copy, then its JSON (the oracle of the fast path). */
function maskedCopyJson(model: ModelDefinition | undefined, data: unknown): string | null {
  if (data === undefined) return null;
  const passwords = new Set(model ? Object.values(model.fields).filter((f) => f.edit.type === 'PASSWORD').map((f) => f.name) : []);
  const seen = new WeakSet<object>();
  const mask = (value: unknown, key: string | undefined, depth: number): unknown => {
    if (key !== undefined && (passwords.has(key) || /pass(word)?|pwd|secret|token|api[-_]?key/i.test(key))) return value === null || value === undefined ? value : MASK;
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[circular]';
    if (depth >= 32) return '[nested too deep]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((v) => mask(v, undefined, depth + 1));
    if (value instanceof Date) return value.toISOString();
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mask(v, k, depth + 1)]));
  };
  const text = JSON.stringify(mask(data, undefined, 0)) ?? null;
  return text !== null && text.length > 16_000 ? `${text.slice(0, 16_000)}…` : text;
}

const Account = defineModel({
  name: 'Account',
  fields: { login: {}, secretCode: {}, pin: { edit: { type: 'PASSWORD' } }, note: { edit: { type: 'TEXTAREA' } } },
});

describe('maskForLog(model, data)', () => {
  it('writes the same JSON as the masking copy for any value (5,000 generated, secrets and shared objects included)', () => {
    const key = fc.oneof(fc.constantFrom('login', 'pin', 'secretCode', 'password', 'apiKey', 'note', 'id', 'changes', 'toJSON', '__proto__'), fc.string());
    const value = fc.letrec((tie) => ({
      leaf: fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.date({ noInvalidDate: true })),
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 5 })),
    })).node;
    fc.assert(
      fc.property(value, fc.boolean(), (data, withModel) => {
        const model = withModel ? Account : undefined;
        expect(maskForLog(model, data)).to.equal(maskedCopyJson(model, data));
        // The same object twice in one value.
        const shared = { twice: data, again: data };
        expect(maskForLog(model, shared)).to.equal(maskedCopyJson(model, shared));
      }),
      { numRuns: 5000 },
    );
  });

  it('masks PASSWORD fields and secret-looking names in a form row, and leaves the rest', () => {
    const row = { id: 7, login: 'ann', pin: '1234', secretCode: 'x', note: null, changes: { apiKey: 'k', login: 'bo' } };
    expect(JSON.parse(maskForLog(Account, row)!)).to.deep.equal({ id: 7, login: 'ann', pin: MASK, secretCode: MASK, note: null, changes: { apiKey: MASK, login: 'bo' } });
    expect(JSON.parse(maskForLog(Account, { id: 1, pin: null })!)).to.deep.equal({ id: 1, pin: null });
  });

  it('summarises what cannot be JSON as it stands', () => {
    const loop: Record<string, unknown> = { id: 1 };
    loop.self = loop;
    expect(maskForLog(undefined, loop)).to.equal('{"id":1,"self":"[circular]"}');
    expect(maskForLog(undefined, { at: new Date(Date.UTC(2024, 0, 2)) })).to.equal('{"at":"2024-01-02T00:00:00.000Z"}');
    expect(maskForLog(undefined, { text: 'x'.repeat(20_000) })!.length).to.equal(16_001);
    expect(maskForLog(undefined, undefined)).to.equal(null);
  });
});
