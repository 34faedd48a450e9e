import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';

/**
 * A process's name on the leases it holds: its host, its process id and a random part (two starts of one process id
 * never share a name). It keys the process's liveness lock (PostgreSQL: an advisory lock; SQLite: a lock file), so
 * a restart, which takes a new name, never passes for the start that held the leases before it.
 */
export function newProcessId(): string {
  return `${hostname()}/${process.pid}/${randomUUID()}`;
}
