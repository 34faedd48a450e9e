import { CrewdError } from '../domain/errors.ts';
import type { Execution } from '../domain/execution.ts';
import type { ExecutionPage } from './store.ts';

/** Where a page of executions ended: the last item's creation time and id (the listing's sort key). */
export interface ExecutionCursor {
  readonly createdAt: Date;
  readonly id: string;
}

export function encodeExecutionCursor(cursor: ExecutionCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), cursor.id])).toString('base64url');
}

/** Throws `VALIDATION_ERROR` for anything that is not a cursor this store handed out. */
export function decodeExecutionCursor(cursor: string): ExecutionCursor {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = undefined;
  }
  if (Array.isArray(value) && value.length === 2) {
    const [createdAt, id] = value as unknown[];
    if (typeof createdAt === 'string' && typeof id === 'string') {
      const date = new Date(createdAt);
      if (!Number.isNaN(date.getTime())) return { createdAt: date, id };
    }
  }
  throw new CrewdError('VALIDATION_ERROR', 'Invalid cursor');
}

/** The page for a query that fetched one row more than `limit`: that extra row only tells that more follow. */
export function executionPage(executions: readonly Execution[], limit: number): ExecutionPage {
  const items = executions.slice(0, limit);
  const last = items.at(-1);
  return {
    items,
    nextCursor: executions.length > limit && last !== undefined ? encodeExecutionCursor(last) : null,
  };
}
