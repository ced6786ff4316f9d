import { expect } from 'chai';
import { FwError, defineModel, type PowerObject } from '@fw/core';
import { aiGate, assertPower, isAiVisible } from './index.js';

function caught(fn: () => void): FwError {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(FwError);
    return error as FwError;
  }
  expect.fail('expected an FwError');
}

const open = defineModel({ name: 'Book', fields: { title: {}, status: { edit: { cellEdit: false } } } });
const closed = defineModel({ name: 'Secret', power: { ai: false, cellEdit: false }, fields: { title: {} } });

describe('aiGate(model) and isAiVisible(model)', () => {
  it('throws 403 AI_DISABLED naming the model when ai is declared false', () => {
    const error = caught(() => aiGate(closed));
    expect(error.status).to.equal(403);
    expect(error.code).to.equal('AI_DISABLED');
    expect(error.message).to.equal('AI access is disabled for this model: Secret');
    expect(error.toBody().error).to.include({ model: 'Secret' });
  });

  it('passes a model that keeps ai on', () => {
    expect(() => aiGate(open)).to.not.throw();
  });

  it('tells whether AI tools may list the model', () => {
    expect(isAiVisible(open)).to.equal(true);
    expect(isAiVisible(closed)).to.equal(false);
  });
});

describe('assertPower(power, flags, modelName)', () => {
  const power = (overrides: Partial<PowerObject> = {}): PowerObject => ({
    add: true,
    delete: false,
    edit: true,
    query: true,
    viewDetails: true,
    export: false,
    importable: false,
    print: true,
    copy: true,
    cellEdit: true,
    ai: true,
    ...overrides,
  });

  it('throws 403 POWER_DENIED naming the flag and the model', () => {
    const error = caught(() => assertPower(power(), 'delete', 'Book'));
    expect(error.status).to.equal(403);
    expect(error.code).to.equal('POWER_DENIED');
    expect(error.message).to.equal('Not permitted: delete on Book');
    expect(error.toBody()).to.deep.equal({ error: { code: 'POWER_DENIED', message: 'Not permitted: delete on Book', model: 'Book', flag: 'delete' } });
  });

  it('requires every flag of a list and names the first one off', () => {
    expect(() => assertPower(power(), ['copy', 'add'], 'Book')).to.not.throw();
    expect(caught(() => assertPower(power({ add: false }), ['copy', 'add', 'export'], 'Book')).message).to.equal('Not permitted: add on Book');
  });

  it('denies anything that is not exactly true', () => {
    const odd = { ...power(), edit: 'yes' } as unknown as PowerObject;
    expect(caught(() => assertPower(odd, 'edit', 'Book')).message).to.equal('Not permitted: edit on Book');
    expect(caught(() => assertPower({}, 'query', 'Book')).message).to.equal('Not permitted: query on Book');
  });
});
