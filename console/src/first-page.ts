import type { ApiClient } from './api-client.ts';
import type { ExecutionPage } from './api-types.ts';

/** Executions on one page of the list. */
export const listPageSize = 20;

let early: Promise<ExecutionPage> | undefined;

/**
 * Asks for the newest page of the list as the script starts, before the page's first render: otherwise the request
 * waits for that render and the frame after it, which on a busy machine is most of the wait for the first rows.
 */
export function askFirstPageEarly(client: ApiClient): void {
  early = client.list({ limit: listPageSize });
  // Whoever takes it sees a failure; until then it is not an unhandled one.
  early.catch(() => undefined);
}

/** The page asked for early, once; later loads ask again. */
export function takeEarlyFirstPage(): Promise<ExecutionPage> | undefined {
  const page = early;
  early = undefined;
  return page;
}
