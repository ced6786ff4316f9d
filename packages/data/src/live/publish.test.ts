import { expect } from 'chai';
import { defineModel } from '@fw/core';
import { memoryBus, type LiveMessage } from './bus.js';
import { LivePublisher } from './publish.js';
import { LiveStream } from './stream.js';

/** A stream of a one-field model for user 1, holding `queueSize` events; `onClose` hears its end. */
function bookStream(queueSize: number, onClose: () => void = () => undefined): LiveStream {
  const Book = defineModel({ name: 'Book', table: 'b', fields: { title: {} } });
  return new LiveStream(Book, { user: { id: 1, account: 'a', isAdmin: false }, ip: null, source: 'http' }, 't', { queueSize, heartbeatMs: 60_000, tokenCheckMs: 60_000 }, async () => true, onClose);
}

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

  it('carries where the operate log holds the rows before: each row’s log id, or the batch (kept apart from other batches)', async () => {
    const bus = memoryBus();
    const got: LiveMessage[] = [];
    await bus.subscribe((m) => void (m.kind !== 'presence' && got.push(m)));
    const publisher = new LivePublisher(bus, 'test', (e) => {
      throw e;
    });
    const actor = { id: 1, account: 'a' };
    publisher.changed('Book', 'update', [1], actor, ['title'], { logId: 11 });
    publisher.changed('Book', 'update', [2], actor, ['title']);
    publisher.changed('Book', 'update', [3], actor, ['title'], { logId: 13 });
    publisher.changed('Book', 'update', [4, 5], actor, ['title'], { batch: 'b-1' });
    publisher.changed('Book', 'delete', [6], actor, undefined, { batch: 'b-2' });
    publisher.flush();
    await Promise.resolve();
    expect(got.map((m) => [m.kind, m.ids, m.logIds, m.batch])).to.deep.equal([
      ['update', [1, 2, 3], [11, 13], undefined],
      ['update', [4, 5], undefined, 'b-1'],
      ['delete', [6], undefined, 'b-2'],
    ]);
  });

  it('a stream whose reader falls behind is told to reload and closed; its timer is gone', () => {
    let closed = 0;
    const stream = bookStream(5, () => (closed += 1));
    // Nobody reads the body: events wait in the queue, then overflow.
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

  it('a stream that has taken everything takes one delivery larger than its queue; one still holding text is told to reload', async () => {
    const reading = bookStream(5);
    let text = '';
    reading.body.on('data', (chunk: Buffer) => (text += chunk.toString()));
    await new Promise((resolve) => setImmediate(resolve));
    const eight = Array.from({ length: 8 }, (_, i) => `id: m-${i}\nevent: update\ndata: {"id":${i}}\n\n`).join('');
    reading.write(eight, 8);
    await new Promise((resolve) => setImmediate(resolve));
    expect(reading.closed).to.equal(false);
    expect((text.match(/^event: update$/gm) ?? []).length).to.equal(8);
    reading.close();
    // Nobody reads this one: its opening comment is still queued, so 8 more events are past the bound.
    const stalled = bookStream(5);
    stalled.write(eight, 8);
    expect(stalled.closed).to.equal(true);
    expect((stalled.body.read() as Buffer | null)?.toString() ?? '').to.include('"reason":"overflow"');
  });

  it('a stream that queued more than its readable holds hands all of it over as it is read, with no further event', async () => {
    const stream = bookStream(500);
    // 100 events of about 1 KiB before anyone reads: six times the readable's high-water mark.
    const note = 'n'.repeat(1000);
    for (let i = 0; i < 100; i += 1) stream.send(`id-${i}`, [{ type: 'update', data: { id: i, values: { note } } }]);
    let text = '';
    stream.body.on('data', (chunk: Buffer) => (text += chunk.toString()));
    // It stalled at about 16 KiB before (a read() answered with nothing, then never made again).
    for (let wait = 0; wait < 100 && (text.match(/^event: update$/gm) ?? []).length < 100; wait += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((text.match(/^event: update$/gm) ?? []).length).to.equal(100);
    expect(text).to.include('"id":99');
    stream.close();
  });
});
