import { expect } from 'chai';
import { defineModel } from '@fw/core';
import { memoryBus, type LiveMessage } from './bus.js';
import { LivePublisher } from './publish.js';
import { LiveStream } from './stream.js';

describe('live publishing and streams', () => {
  it('gathers the changes of one run and sends at most 1,000 ids per message, after the writer returns', async () => {
    const bus = memoryBus();
    const got: LiveMessage[] = [];
    await bus.subscribe((m) => m.kind !== 'presence' && got.push(m));
    const publisher = new LivePublisher(bus, 'test', (e) => {
      throw e;
    });
    const actor = { id: 1, account: 'a', name: 'A' };
    publisher.changed('Book', 'insert', Array.from({ length: 2500 }, (_, i) => i + 1), actor);
    publisher.changed('Book', 'update', [7], actor, ['title', 'price']);
    publisher.changed('Book', 'update', [8], actor, ['price', 'title']);
    expect(got).to.deep.equal([]);
    await new Promise((r) => setImmediate(r));
    await Promise.resolve();
    expect(got.map((m) => [m.kind, m.ids.length])).to.deep.equal([
      ['insert', 1000],
      ['insert', 1000],
      ['insert', 500],
      ['update', 2],
    ]);
    expect(got[3]!.changed).to.deep.equal(['price', 'title']);
    const ids = got.map((m) => m.id);
    expect([...ids].sort()).to.deep.equal(ids);
    expect(new Set(ids).size).to.equal(4);
  });

  it('a stream whose reader falls behind is told to reload and closed; its timer is gone', () => {
    const Book = defineModel({ name: 'Book', table: 'b', fields: { title: {} } });
    let closed = 0;
    const stream = new LiveStream(
      Book,
      { user: { id: 1, account: 'a', isAdmin: false }, ip: null, source: 'http' },
      't',
      { queueSize: 5, heartbeatMs: 60_000, tokenCheckMs: 60_000 },
      async () => true,
      () => (closed += 1),
    );
    // Nobody reads the body: past 16 KiB in the readable, events wait in the queue, then overflow.
    const big = 'x'.repeat(4000);
    for (let i = 0; i < 20 && !stream.closed; i += 1) stream.send(`id-${i}`, [{ type: 'update', data: { id: i, values: { big } } }]);
    expect(stream.closed).to.equal(true);
    expect(closed).to.equal(1);
    const text = (stream.body.read() as Buffer | null)?.toString() ?? '';
    expect(text).to.include('event: reload');
    expect(text).to.include('"reason":"overflow"');
    stream.close('again');
    expect(closed).to.equal(1);
  });
});
