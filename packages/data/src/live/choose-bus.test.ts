import { expect } from 'chai';
import type { FwStore } from '@fw/store';
import type { FwRedisClient } from '@fw/token';
import { liveBusFor } from './choose-bus.js';

// Nothing connects before a publish or subscribe, so stand-ins are enough to see the choice.
const redis = { publish: async () => 0, duplicate: () => ({}) } as unknown as FwRedisClient;
const cluster = { ...redis, nodes: () => [] } as unknown as FwRedisClient;
const store = (dialect: FwStore['dialect']) => ({ dialect, knex: { client: { config: { connection: 'postgres://127.0.0.1/x' } } } }) as unknown as FwStore;

describe('liveBusFor', () => {
  it('takes Redis when the application has it, whatever its database', () => {
    expect(liveBusFor({ redis, store: store('postgres') }).kind).to.equal('redis');
    expect(liveBusFor({ redis: cluster, store: store('sqlite') }).kind).to.equal('redis-cluster');
  });

  it('takes PostgreSQL LISTEN/NOTIFY on PostgreSQL without Redis', () => {
    expect(liveBusFor({ store: store('postgres') }).kind).to.equal('postgres');
  });

  it('stays in the process on the other databases without Redis', () => {
    for (const dialect of ['sqlite', 'mysql', 'mssql'] as const) expect(liveBusFor({ store: store(dialect) }).kind).to.equal('memory');
  });
});
