import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { FwDefinitionError } from '@fw/core';
import { knexConfigFor } from '@fw/test-utils';
import type { LiveBusMessage } from './bus.js';
import { PG_NOTIFY_MAX_BYTES, pgBus, pgPayloads } from './pg-bus.js';
import { busConformance, closesItsSockets, liveMessage, until, type BusPair } from './test-setup.js';

describe('pgBus', () => {
  it('refuses a channel that is not a plain SQL name, and a missing connection', () => {
    expect(() => pgBus({ connection: 'postgres://x/y', channel: 'live"; drop table x; --' })).to.throw(FwDefinitionError, /lower-case SQL name/);
    expect(() => pgBus({})).to.throw(FwDefinitionError, /knex on PostgreSQL or a postgres:\/\/ URL/);
  });

  it('cuts a message too large for one NOTIFY into parts under 8,000 bytes each', () => {
    const big = liveMessage('origin', Array.from({ length: 1000 }, (_, i) => Number.MAX_SAFE_INTEGER - i), { actor: { id: 1, account: 'ä'.repeat(500) } });
    const payloads = pgPayloads(big);
    expect(Buffer.byteLength(JSON.stringify(big))).to.be.greaterThan(17_000);
    expect(payloads.length).to.be.greaterThan(2);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).to.be.at.most(PG_NOTIFY_MAX_BYTES);
    expect(pgPayloads(liveMessage('origin'))).to.have.length(1);
  });
});

describe('pgBus on PostgreSQL', function () {
  const url = process.env.FW_TEST_PG_URL;
  if (!url) {
    it('skipped: FW_TEST_PG_URL is not set, so the PostgreSQL bus suite did not run', function () {
      this.skip();
    });
    return;
  }
  let knex: Knex;
  before(() => {
    knex = knexFactory({ ...knexConfigFor(url), pool: { min: 0, max: 2 } });
  });
  after(async () => {
    await knex?.destroy();
  });
  let channel = '';
  // One instance given the app's knex, the other a URL: both ways of opening the connection.
  const pair = async (): Promise<BusPair> => {
    channel = `fw_live_test_${randomBytes(4).toString('hex')}`;
    const errorsA: Error[] = [];
    const errorsB: Error[] = [];
    return {
      a: pgBus({ knex, channel, onError: (e) => errorsA.push(e) }),
      b: pgBus({ connection: url, channel, onError: (e) => errorsB.push(e) }),
      errorsA,
      errorsB,
      inject: async (payload) => {
        await knex.raw('select pg_notify(?, ?)', [channel, payload]);
      },
    };
  };
  busConformance(pair);

  it('is a postgres bus', async () => {
    const p = await pair();
    expect(p.a.kind).to.equal('postgres');
    await p.a.close();
    await p.b.close();
  });

  it('closes the connection it opened', async () => {
    // Warm the pool the injector uses, so the count sees only the buses' connections.
    await knex.raw('select 1');
    await closesItsSockets(pair);
    const listening = await knex.raw(`select count(*)::int as n from pg_stat_activity where query = ?`, [`LISTEN "${channel}"`]);
    expect(listening.rows[0].n).to.equal(0);
  });

  it('delivers a 1,000-id message with long ids whole, sent in parts that each fit a NOTIFY', async () => {
    const p = await pair();
    try {
      const got: LiveBusMessage[] = [];
      await p.b.subscribe((m) => got.push(m));
      const big = liveMessage('one', Array.from({ length: 1000 }, (_, i) => Number.MAX_SAFE_INTEGER - i), { actor: { id: 1, account: 'ä'.repeat(300), name: '名前'.repeat(100) } });
      const small = liveMessage('one');
      await p.a.publish(big);
      await p.a.publish(small);
      await until(() => got.length === 2);
      expect(got[0]).to.deep.equal(big);
      expect(got[1]).to.deep.equal(small);
      // PostgreSQL itself refuses a payload of 8,000 bytes or more: no error means every part fit.
      expect(p.errorsA).to.deep.equal([]);
      expect(p.errorsB).to.deep.equal([]);
    } finally {
      await p.a.close();
      await p.b.close();
    }
  });

  it('drops a part of a message whose other parts never come, without delivering half a message', async () => {
    const p = await pair();
    try {
      const got: LiveBusMessage[] = [];
      await p.b.subscribe((m) => got.push(m));
      const parts = pgPayloads(liveMessage('one', Array.from({ length: 1000 }, (_, i) => Number.MAX_SAFE_INTEGER - i)));
      for (const part of parts.slice(1)) await p.inject!(part);
      const small = liveMessage('one');
      await p.a.publish(small);
      await until(() => got.length === 1);
      expect(got).to.deep.equal([small]);
    } finally {
      await p.a.close();
      await p.b.close();
    }
  });

  it('reports a lost connection, reconnects and listens again', async function () {
    this.timeout(15_000);
    const p = await pair();
    try {
      const got: LiveBusMessage[] = [];
      await p.b.subscribe((m) => got.push(m));
      const killed = await knex.raw(`select pg_terminate_backend(pid) from pg_stat_activity where query = ? and pid <> pg_backend_pid()`, [`LISTEN "${channel}"`]);
      // Only b has connected yet (a bus connects on its first publish or subscribe).
      expect(killed.rows).to.have.length(1);
      await until(() => p.errorsB.length >= 1);
      const after = liveMessage('one');
      // Published until it arrives: the first tries may fall in the reconnection's second.
      await until(() => {
        if (got.length === 0) void p.a.publish(after);
        return got.length > 0;
      }, 10_000);
      expect(got[0]).to.deep.equal(after);
    } finally {
      await p.a.close();
      await p.b.close();
    }
  });
});
