import pg from 'pg';
import type { ExecutionState } from '../../domain/execution.ts';
import type { CoordinationFeed, ChangeListener, ExecutionNotice } from '../coordination-feed.ts';
import { noticeChannelSql, takeLivenessLock } from './liveness.ts';

export interface PostgresCoordinationFeedOptions {
  readonly connection: pg.ClientConfig;
  /** This process's name: its lease owner, the key of its liveness lock, the origin of its notices. */
  readonly processId: string;
  /** How long to wait before connecting again after the connection was lost. */
  readonly reconnectMs?: number;
  readonly onError?: (error: Error) => void;
}

/**
 * Listens for the notices other processes' writes send, on a connection of its own that also holds this process's
 * liveness lock. When the connection is lost it connects again, takes the lock again and tells the listener to
 * resync, since notices sent meanwhile are lost.
 */
export function postgresCoordinationFeed(options: PostgresCoordinationFeedOptions): CoordinationFeed {
  const reconnectMs = options.reconnectMs ?? 1000;
  let client: pg.Client | undefined;
  let connected = false;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  async function connect(listener: ChangeListener): Promise<void> {
    // Named, so an operator can tell which process a liveness lock belongs to in pg_stat_activity.
    const next = new pg.Client({
      ...options.connection,
      keepAlive: true,
      application_name: `crewd ${options.processId}`.slice(0, 63),
    });
    client = next;
    next.on('notification', (message) => {
      const notice = parseNotice(message.payload, options.processId);
      if (notice !== undefined) listener.changed(notice);
    });
    const onLost = (): void => {
      if (client !== next) return;
      void drop();
      scheduleReconnect(listener);
    };
    next.on('error', onLost);
    next.on('end', onLost);
    await next.connect();
    const { rows } = await next.query<{ locked: boolean }>(takeLivenessLock, [options.processId]);
    // A previous connection of ours that the server has not dropped yet still holds it: try again shortly.
    if (rows[0]?.locked !== true) throw new Error('The liveness lock is held by another session');
    const channel = (await next.query<{ channel: string }>(`SELECT ${noticeChannelSql} AS channel`)).rows[0];
    await next.query(`LISTEN ${next.escapeIdentifier(channel?.channel ?? '')}`);
    connected = true;
  }

  async function attempt(listener: ChangeListener, resync: boolean): Promise<void> {
    try {
      await connect(listener);
      if (resync) listener.resync();
    } catch (error) {
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
      void drop();
      scheduleReconnect(listener);
    }
  }

  function drop(): Promise<void> {
    connected = false;
    const old = client;
    client = undefined;
    return old === undefined ? Promise.resolve() : old.end().catch(() => undefined);
  }

  function scheduleReconnect(listener: ChangeListener): void {
    if (closed || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      void attempt(listener, true);
    }, reconnectMs).unref();
  }

  return {
    get connected() {
      return connected;
    },
    start: (listener) => attempt(listener, false),
    close() {
      closed = true;
      clearTimeout(retry);
      return drop();
    },
  };
}

function parseNotice(payload: string | undefined, self: string): ExecutionNotice | undefined {
  if (payload === undefined) return undefined;
  const fields = JSON.parse(payload) as {
    o: string;
    id: string;
    s: string;
    l: string | null;
    r: number;
    t: number;
  };
  if (fields.o === self) return undefined;
  return {
    executionId: fields.id,
    state: fields.s as ExecutionState,
    leaseOwner: fields.l,
    revision: Number(fields.r),
    committedAt: new Date(fields.t),
  };
}
