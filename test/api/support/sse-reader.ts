import { readServerSentEvents } from '../../../src/client/read-server-sent-events.ts';
import type { ServerSentItem } from '../../../src/client/read-server-sent-events.ts';

/** One block of a `text/event-stream`: an event, or a comment line (heartbeats). */
export interface SseBlock {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly comment?: string;
}

/** Reads a Server-Sent Events response block by block, with the client's reader (as a browser's EventSource would). */
export class SseReader {
  readonly #body: ReadableStream<Uint8Array>;
  readonly #items: AsyncGenerator<ServerSentItem, void, undefined>;

  constructor(response: Response) {
    if (response.body === null) throw new Error('response has no body');
    this.#body = response.body;
    this.#items = readServerSentEvents(response.body);
  }

  /** The next block, or null when the server ended the stream. */
  async next(): Promise<SseBlock | null> {
    const item = await this.#items.next();
    if (item.done === true) return null;
    // Only the fields the server sent, so a block compares equal to the literal a test expects.
    return Object.fromEntries(Object.entries(item.value).filter(([, value]) => value !== undefined));
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
    // A reader that has read closes the body as it stops; one that never read has not taken the body yet.
    await this.#items.return();
    if (!this.#body.locked) await this.#body.cancel();
  }
}
