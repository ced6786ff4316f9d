import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';

// Issue 24 §3: the live stream is read with fetch and cut into server-sent events by the app's own
// parser (packages/ui/app/src/client/sse.ts, pure, loaded by path: the app has its own tsconfig).
const SSE = join(dirname(fileURLToPath(import.meta.url)), '..', 'app', 'src', 'client', 'sse.ts');

interface Message {
  event: string;
  data: string;
  id: string | undefined;
}
interface Parser {
  push(text: string): { messages: Message[]; retryMs?: number };
  readonly lastId: string | undefined;
}
type ParserClass = new (lastId?: string) => Parser;

async function load(): Promise<ParserClass> {
  return ((await import(pathToFileURL(SSE).href)) as { SseParser: ParserClass }).SseParser;
}

/** Feeds `text` in pieces of `size` characters; answers every message and the last retry. */
function feed(Parser: ParserClass, text: string, size: number): { messages: Message[]; retryMs?: number } {
  const parser = new Parser();
  const out: { messages: Message[]; retryMs?: number } = { messages: [] };
  for (let i = 0; i < text.length; i += size) {
    const chunk = parser.push(text.slice(i, i + size));
    out.messages.push(...chunk.messages);
    if (chunk.retryMs !== undefined) out.retryMs = chunk.retryMs;
  }
  return out;
}

// What the server writes (packages/data/src/live/stream.ts): a first comment with retry, events with ids, heartbeats.
const STREAM =
  ': live\nretry: 3000\n\n' +
  'id: 1795808816575-000006-a\nevent: update\ndata: {"model":"Book","id":3,"values":{"price":12}}\n\n' +
  ': heartbeat\n\n' +
  'id: 1795808816580-000007-a\nevent: insert\ndata: {"model":"Book","id":9,"row":{"title":"Dune"}}\n\n' +
  'event: reload\ndata: {"reason":"overflow"}\n\n';

describe('ui live stream: the SSE parser', () => {
  it('reads the server’s stream: events, data, ids, retry; comments dispatch nothing', async () => {
    const Parser = await load();
    const { messages, retryMs } = feed(Parser, STREAM, STREAM.length);
    expect(retryMs).to.equal(3000);
    expect(messages.map((m) => [m.event, JSON.parse(m.data).id ?? JSON.parse(m.data).reason, m.id])).to.deep.equal([
      ['update', 3, '1795808816575-000006-a'],
      ['insert', 9, '1795808816580-000007-a'],
      // A message without id: keeps the last one (what a reconnect sends as Last-Event-ID).
      ['reload', 'overflow', '1795808816580-000007-a'],
    ]);
  });

  it('gives the same messages however the text is cut (every chunk size, CRLF and CR line ends too)', async () => {
    const Parser = await load();
    const whole = feed(Parser, STREAM, STREAM.length).messages;
    for (const text of [STREAM, STREAM.replace(/\n/g, '\r\n'), STREAM.replace(/\n/g, '\r')]) {
      for (const size of [1, 2, 3, 7, 64]) expect(feed(Parser, text, size).messages, `size ${size}`).to.deep.equal(whole);
    }
  });

  it('joins data lines, takes "field:value" without a space, ignores unknown fields, NUL ids and events without data', async () => {
    const Parser = await load();
    const parser = new Parser('7');
    const { messages } = parser.push('data:a\ndata: b\nfoo: bar\nid: x\0y\n\nevent: empty\n\nevent:presence\ndata\n\n');
    expect(messages).to.deep.equal([
      { event: 'message', data: 'a\nb', id: '7' },
      { event: 'presence', data: '', id: '7' },
    ]);
    expect(parser.lastId).to.equal('7');
    // An unfinished message waits for its blank line.
    expect(parser.push('id: 8\nevent: update\ndata: {}').messages).to.deep.equal([]);
    expect(parser.push('\n\n').messages).to.deep.equal([{ event: 'update', data: '{}', id: '8' }]);
  });
});
