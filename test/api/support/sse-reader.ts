/** One block of a `text/event-stream`: an event, or a comment line (heartbeats). */
export interface SseBlock {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly comment?: string;
}

/** Reads a Server-Sent Events response block by block, as a browser's EventSource would. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';

  constructor(response: Response) {
    if (response.body === null) throw new Error('response has no body');
    this.#reader = response.body.getReader();
  }

  /** The next block, or null when the server ended the stream. */
  async next(): Promise<SseBlock | null> {
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        return parseBlock(block);
      }
      const chunk = await this.#reader.read();
      if (chunk.done) return null;
      this.#buffer += this.#decoder.decode(chunk.value, { stream: true });
    }
  }

  /** The next `count` events, skipping comments. */
  async events(count: number): Promise<SseBlock[]> {
    const events: SseBlock[] = [];
    while (events.length < count) {
      const block = await this.next();
      if (block === null) throw new Error(`stream ended after ${events.length} of ${count} events`);
      if (block.comment === undefined) events.push(block);
    }
    return events;
  }

  /** Every remaining event until the server ends the stream. */
  async rest(): Promise<SseBlock[]> {
    const events: SseBlock[] = [];
    for (let block = await this.next(); block !== null; block = await this.next()) {
      if (block.comment === undefined) events.push(block);
    }
    return events;
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }
}

function parseBlock(block: string): SseBlock {
  const fields: Record<string, string> = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) return { comment: line.slice(1).trim() };
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields[name] = name === 'data' && fields.data !== undefined ? `${fields.data}\n${value}` : value;
  }
  return fields;
}
