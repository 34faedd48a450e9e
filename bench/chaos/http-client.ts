import { benchToken } from '../lib/crewd-server.ts';

export interface Answer {
  readonly status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the scenarios read arbitrary fields
  readonly body: any;
  readonly bytes: number;
}

/** One JSON request with the benchmark token; a network error answers status 0. */
export async function call(url: string, method: string, path: string, body?: unknown): Promise<Answer> {
  try {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${benchToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // plain text
    }
    return { status: response.status, body: parsed, bytes: Buffer.byteLength(text) };
  } catch {
    return { status: 0, body: null, bytes: 0 };
  }
}

/** Polls every execution until each is finished or `timeoutMs` passes; resolves with the states by id. */
export async function settle(
  url: string,
  ids: readonly string[],
  timeoutMs: number,
): Promise<Map<string, string>> {
  const states = new Map<string, string>();
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    for (const id of ids) {
      if (['SUCCESS', 'FAILED', 'REVOKED'].includes(states.get(id) ?? '')) continue;
      const answer = await call(url, 'GET', `/status/${id}`);
      if (answer.status === 200) states.set(id, answer.body.state as string);
    }
    const open = ids.filter((id) => !['SUCCESS', 'FAILED', 'REVOKED'].includes(states.get(id) ?? ''));
    if (open.length === 0 || performance.now() > deadline) return states;
    await new Promise((done) => setTimeout(done, 200));
  }
}

export const isServerError = (status: number): boolean => status >= 500 && status !== 503;
