import { Pool } from 'undici';
import { benchToken } from './crewd-server.ts';

export interface CrewdClient {
  /** POST /kickoff; resolves with the kickoff id. */
  kickoff(body: Record<string, unknown>): Promise<string>;
  /** GET a path with the token; resolves with the status code and parsed body. */
  get(path: string): Promise<{ status: number; body: unknown }>;
  /** POST a JSON body with the token; rejects unless the answer is 2xx. */
  post(path: string, body: Record<string, unknown>): Promise<unknown>;
  /**
   * Follows the execution's event stream until it ends and resolves with its final state. This is how a client
   * learns of the end at once without polling, so the figure measures the server, not a polling interval.
   */
  waitForEnd(id: string, timeoutMs?: number): Promise<string>;
  /** Polls GET /status/{id} until its state is one of `states`; resolves with that state. */
  waitForState(id: string, states: readonly string[], timeoutMs?: number): Promise<string>;
  close(): Promise<void>;
}

const authorization = `Bearer ${benchToken}`;

/**
 * A client over one undici pool, so connections are reused as a real client's would be. Kickoffs go to `crewPath`
 * (`/crews/<name>` for one crew of several); executions are followed at the root, which answers for every crew.
 */
export function crewdClient(url: string, connections = 256, crewPath = ''): CrewdClient {
  const pool = new Pool(url, { connections, pipelining: 1 });

  async function kickoff(body: Record<string, unknown>): Promise<string> {
    const response = await pool.request({
      method: 'POST',
      path: `${crewPath}/kickoff`,
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`kickoff answered ${response.statusCode}: ${text}`);
    return (JSON.parse(text) as { kickoff_id: string }).kickoff_id;
  }

  async function post(path: string, body: Record<string, unknown>): Promise<unknown> {
    const response = await pool.request({
      method: 'POST',
      path,
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`POST ${path} answered ${response.statusCode}: ${text}`);
    return JSON.parse(text) as unknown;
  }

  async function get(path: string): Promise<{ status: number; body: unknown }> {
    const response = await pool.request({ method: 'GET', path, headers: { authorization } });
    const text = await response.body.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // plain text answers stay text
    }
    return { status: response.statusCode, body };
  }

  async function waitForEnd(id: string, timeoutMs = 60_000): Promise<string> {
    const signal = AbortSignal.timeout(timeoutMs);
    const response = await pool.request({
      method: 'GET',
      path: `/executions/${id}/events`,
      headers: { authorization, accept: 'text/event-stream' },
      signal,
    });
    if (response.statusCode !== 200) {
      throw new Error(`events of ${id} answered ${response.statusCode}: ${await response.body.text()}`);
    }
    let buffer = '';
    response.body.setEncoding('utf8');
    for await (const chunk of response.body as AsyncIterable<string>) {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!/^event: ?execution-end$/m.test(block)) continue;
        const data = /^data: ?(.*)$/m.exec(block)?.[1] ?? '{}';
        response.body.destroy();
        return (JSON.parse(data) as { state?: string }).state ?? 'UNKNOWN';
      }
    }
    throw new Error(`the event stream of ${id} ended before the execution did`);
  }

  async function waitForState(id: string, states: readonly string[], timeoutMs = 60_000): Promise<string> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const { body } = await get(`/status/${id}`);
      const state = (body as { state?: string }).state ?? 'UNKNOWN';
      if (states.includes(state)) return state;
      if (performance.now() > deadline) throw new Error(`execution ${id} stayed ${state}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  return { kickoff, get, post, waitForEnd, waitForState, close: () => pool.close() };
}
