// What every live bus must do, run against each transport by the bus tests: two buses, as two
// instances of the application would hold, on one channel.
import { expect } from 'chai';
import type { LiveBus, LiveBusMessage, LiveMessage, LivePresenceMessage } from './bus.js';
import { liveMessageId } from './bus.js';

export interface BusPair {
  a: LiveBus;
  b: LiveBus;
  /** What each bus reported to its onError. */
  errorsA: Error[];
  errorsB: Error[];
  /** Writes a raw payload on the channel, as a foreign client could; absent for the memory bus. */
  inject?(payload: string): Promise<void>;
}

export function liveMessage(origin: string, ids: number[] = [1], extra: Partial<LiveMessage> = {}): LiveMessage {
  return { id: liveMessageId(origin), origin, model: 'product', kind: 'update', ids, changed: ['price'], actor: { id: 1, account: 'admin' }, at: new Date().toISOString(), ...extra };
}

export function presenceMessage(origin: string, extra: Partial<LivePresenceMessage> = {}): LivePresenceMessage {
  return { kind: 'presence', id: liveMessageId(origin), origin, model: 'product', user: { id: 2, account: 'ann', name: 'Änn' }, client: 'tab-0123456789', row: 7, field: 'price', at: new Date().toISOString(), ...extra };
}

export async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

/** TCP sockets this process holds open: a closed bus must leave as many as there were before it. */
export function openSockets(): number {
  return process.getActiveResourcesInfo().filter((name) => name === 'TCPSocketWrap').length;
}

/**
 * The shared tests. `pair` makes two fresh buses on a fresh channel; `single` is true for the
 * memory bus, whose two "instances" are one bus (it reaches its own process only).
 */
export function busConformance(pair: () => Promise<BusPair>, options: { single?: boolean } = {}): void {
  let p: BusPair;
  beforeEach(async () => {
    p = await pair();
  });
  afterEach(async () => {
    await p.a.close();
    await p.b.close();
  });

  it('delivers each message published on one instance exactly once to the subscribers of both, in publish order', async () => {
    const gotA: LiveBusMessage[] = [];
    const gotB: LiveBusMessage[] = [];
    await p.a.subscribe((m) => gotA.push(m));
    await p.b.subscribe((m) => gotB.push(m));
    const sent = Array.from({ length: 30 }, (_, i) => liveMessage('one', [i + 1]));
    // Not awaited one by one: the order must hold for a burst too.
    await Promise.all(sent.map((m) => p.a.publish(m)));
    await until(() => gotA.length >= 30 && gotB.length >= 30);
    await settle();
    expect(gotA.map((m) => m.id)).to.deep.equal(sent.map((m) => m.id));
    expect(gotB.map((m) => m.id)).to.deep.equal(sent.map((m) => m.id));
    expect(gotB[7]).to.deep.equal(sent[7]);
    expect([...p.errorsA, ...p.errorsB]).to.deep.equal([]);
  });

  it('carries presence messages beside row messages, whole and in publish order', async () => {
    const gotB: LiveBusMessage[] = [];
    await p.b.subscribe((m) => gotB.push(m));
    const left = presenceMessage('one', { row: null });
    delete left.field;
    const sent: LiveBusMessage[] = [presenceMessage('one'), liveMessage('one'), left, presenceMessage('one', { client: 'Z'.repeat(64), row: 9 })];
    await Promise.all(sent.map((m) => p.a.publish(m)));
    await until(() => gotB.length >= 4);
    await settle();
    expect(gotB).to.deep.equal(sent);
  });

  it('delivers what the other instance publishes too', async () => {
    const gotA: LiveBusMessage[] = [];
    await p.a.subscribe((m) => gotA.push(m));
    const message = liveMessage('two', [5, 6], { kind: 'delete', changed: undefined, actor: { id: 2, account: 'ann', name: 'Änn Ñ' } });
    delete message.changed;
    await p.b.publish(message);
    await until(() => gotA.length === 1);
    expect(gotA[0]).to.deep.equal(message);
  });

  it('stops delivering to a subscriber that unsubscribed, and to nobody after close', async () => {
    const gotA: LiveBusMessage[] = [];
    const gotB: LiveBusMessage[] = [];
    const gotB2: LiveBusMessage[] = [];
    await p.a.subscribe((m) => gotA.push(m));
    const off = await p.b.subscribe((m) => gotB.push(m));
    await p.b.subscribe((m) => gotB2.push(m));
    await off();
    await p.a.publish(liveMessage('one'));
    await until(() => gotA.length === 1 && gotB2.length === 1);
    await settle();
    expect(gotB).to.have.length(0);
    if (options.single) return;
    await p.b.close();
    await p.a.publish(liveMessage('one'));
    await until(() => gotA.length === 2);
    await settle();
    expect(gotB2).to.have.length(1);
  });

  // Not asked of the memory bus (bus.ts): a receiver that throws there throws on its own.
  if (!options.single)
  it('keeps delivering to the others when one receiver throws, and reports the throw', async () => {
    const got: LiveBusMessage[] = [];
    await p.b.subscribe(() => {
      throw new Error('receiver broke');
    });
    await p.b.subscribe((m) => got.push(m));
    await p.a.publish(liveMessage('one'));
    await until(() => got.length === 1);
    expect(p.errorsB.map((e) => e.message)).to.deep.equal(['receiver broke']);
  });

  if (!options.single) {
    it('drops a malformed payload written on the channel, reports it, and keeps delivering', async () => {
      const gotA: LiveBusMessage[] = [];
      const gotB: LiveBusMessage[] = [];
      await p.a.subscribe((m) => gotA.push(m));
      await p.b.subscribe((m) => gotB.push(m));
      await p.inject!('{not json');
      await p.inject!(JSON.stringify({ ...liveMessage('x'), ids: ['1 or 1=1'] }));
      await p.inject!(JSON.stringify({ ...liveMessage('x'), kind: 'truncate' }));
      await p.inject!('null');
      // Presence messages are held to their own shape: a client key, a row id or null, bounded names.
      await p.inject!(JSON.stringify(presenceMessage('x', { client: 'short' })));
      await p.inject!(JSON.stringify(presenceMessage('x', { row: '7' as never })));
      await p.inject!(JSON.stringify(presenceMessage('x', { user: { id: 2, account: 'a'.repeat(501) } })));
      await p.inject!(JSON.stringify({ ...presenceMessage('x'), user: null }));
      const good = liveMessage('one');
      await p.a.publish(good);
      await until(() => gotA.length === 1 && gotB.length === 1);
      expect(gotA).to.deep.equal([good]);
      expect(gotB).to.deep.equal([good]);
      await until(() => p.errorsA.length === 8 && p.errorsB.length === 8);
      expect(p.errorsA.every((e) => /live bus: dropped/.test(e.message))).to.equal(true);
    });
  }
}

/** Opens a pair, uses it, closes it, and checks every socket it opened is gone. */
export async function closesItsSockets(pair: () => Promise<BusPair>): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 100));
  const before = openSockets();
  const p = await pair();
  const got: LiveBusMessage[] = [];
  await p.a.subscribe((m) => got.push(m));
  await p.b.subscribe(() => {});
  await p.b.publish(liveMessage('one'));
  await until(() => got.length === 1);
  await p.a.close();
  await p.b.close();
  await until(() => openSockets() <= before, 3000).catch((error: Error) => {
    throw new Error(`${error.message}: ${openSockets()} sockets open, ${before} before the buses`);
  });
}
