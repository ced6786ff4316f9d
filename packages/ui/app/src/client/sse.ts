// A reader of server-sent events (the `text/event-stream` format of the HTML standard) for a body
// read with `fetch`: `EventSource` cannot send the token header, so the live stream (issue 24 §3)
// is read chunk by chunk and cut into messages here. Pure: no browser API, so it is unit-tested
// under Node (packages/ui/src/live-sse.test.ts).

/** One message of the stream: its `event:` name (default `message`), its joined `data:` lines and the `id:` in force. */
export interface SseMessage {
  event: string;
  data: string;
  /** The last event id seen so far (an `id:` line of this message or an earlier one). */
  id: string | undefined;
}

/** What one chunk of text brought: the complete messages, and a `retry:` the server asked for. */
export interface SseChunk {
  messages: SseMessage[];
  retryMs?: number;
}

/**
 * Cuts a stream of text into messages. Lines may end with LF, CR or CRLF and a chunk may end
 * anywhere (inside a line, between CR and LF); comment lines (`: heartbeat`) only prove the
 * connection is alive. A message without `data:` is not dispatched, as the standard says.
 */
export class SseParser {
  #buffer = '';
  // A chunk that ended with CR: an LF at the start of the next one belongs to that line end.
  #afterCr = false;
  #event = '';
  #data: string[] = [];
  #id: string | undefined;

  constructor(lastId?: string) {
    this.#id = lastId;
  }

  /** The last event id seen (what a reconnect sends as `Last-Event-ID`). */
  get lastId(): string | undefined {
    return this.#id;
  }

  /** Feeds decoded text; answers the messages it completed. */
  push(text: string): SseChunk {
    let input = text;
    if (this.#afterCr && input.startsWith('\n')) input = input.slice(1);
    this.#afterCr = false;
    this.#buffer += input;
    const out: SseChunk = { messages: [] };
    for (;;) {
      const end = this.#buffer.search(/[\r\n]/);
      if (end < 0) break;
      const line = this.#buffer.slice(0, end);
      let next = end + 1;
      if (this.#buffer[end] === '\r') {
        if (end + 1 === this.#buffer.length) this.#afterCr = true;
        else if (this.#buffer[end + 1] === '\n') next = end + 2;
      }
      this.#buffer = this.#buffer.slice(next);
      this.#line(line, out);
    }
    return out;
  }

  #line(line: string, out: SseChunk): void {
    if (line === '') {
      if (this.#data.length > 0) out.messages.push({ event: this.#event || 'message', data: this.#data.join('\n'), id: this.#id });
      this.#event = '';
      this.#data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'event') this.#event = value;
    else if (name === 'data') this.#data.push(value);
    // An id holding NUL is ignored, as the standard says.
    else if (name === 'id' && !value.includes('\0')) this.#id = value;
    else if (name === 'retry' && /^\d+$/.test(value)) out.retryMs = Number(value);
  }
}
