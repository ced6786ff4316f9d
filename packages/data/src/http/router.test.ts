import { expect } from 'chai';
import { FwDefinitionError, createRegistry, defineModel } from '@fw/core';
import { createStore } from '@fw/store';
import { FwTokenService, MemoryTokenStore } from '@fw/token';
import { fwData } from './router.js';

describe('fwData(options) at start-up', () => {
  const store = createStore('sqlite::memory:');
  const tokens = new FwTokenService({ store: new MemoryTokenStore() });
  after(() => store.destroy());

  it('refuses models named like the route words, in any case', () => {
    for (const name of ['export', 'Export', 'MODIFY', 'table']) {
      expect(() => fwData({ store, tokens, registry: createRegistry([defineModel({ name, table: `t_${name.toLowerCase()}`, fields: {} })]) }), name).to.throw(FwDefinitionError, /word of the data routes/);
    }
  });

  it('refuses missing parts and bad limits', () => {
    const registry = createRegistry([]);
    expect(() => fwData({ store, tokens: undefined as never, registry })).to.throw(FwDefinitionError, /fwData\.tokens/);
    expect(() => fwData({ store: undefined as never, tokens, registry })).to.throw(FwDefinitionError, /fwData\.store/);
    expect(() => fwData({ store, tokens, registry, limits: { maxSize: 0 } })).to.throw(FwDefinitionError, /fwData\.limits\.maxSize/);
    expect(() => fwData({ store, tokens, registry, limits: { defaultSize: 500 } })).to.throw(FwDefinitionError, /defaultSize/);
    expect(() => fwData({ store, tokens, registry, bodyLimit: -1 })).to.throw(FwDefinitionError, /bodyLimit/);
  });
});
