import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';

/**
 * A process's name on the leases it holds: its host, its process id and a random part (two starts of one process id
 * never share a name). On PostgreSQL the name keys the process's liveness lock; on SQLite, whose processes share one
 * machine, the host and process id tell whether the holder of a lease is still running.
 */
export function newProcessId(): string {
  return `${hostname()}/${process.pid}/${randomUUID()}`;
}

/** True when `owner` names a process on this host that is no longer running (judged by the process `self`). */
export function endedOnThisHost(owner: string, self: string): boolean {
  if (owner === self) return false;
  const [host, pid] = owner.split('/');
  const id = Number(pid);
  if (host !== hostname() || !Number.isSafeInteger(id) || id <= 0) return false;
  // This process's own id under another name: a previous start of it (a restarted container often gets the same id).
  if (id === process.pid) return true;
  return !isRunning(id);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
