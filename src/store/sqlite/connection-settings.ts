import type Database from 'better-sqlite3';

/**
 * SQLite's own default page cache, 2 MiB. better-sqlite3 builds SQLite with 16 MiB, which a server fills as its
 * database grows and never gives back: 16 MB of resident memory held for pages the operating system's file cache
 * keeps anyway. Server CPU per execution (figure 2's load) measured no worse with the smaller cache.
 */
export const pageCacheKib = 2000;

/** The settings every connection of the SQLite store gets, after `journal_mode = WAL`. */
export function applyConnectionSettings(db: Database.Database): void {
  // NORMAL commits without syncing the write-ahead log; the store syncs it on libuv's thread pool before it
  // acknowledges a write (log-sync.ts, write-batcher.ts), so what was acknowledged survives a power loss while the
  // event loop goes on serving. SQLite still syncs around every checkpoint itself.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // A statement that may fail halfway inside a transaction (an insert of several events, with their foreign key)
  // first copies each page it changes to a statement journal, which spills to a temporary file past 64 KiB: more
  // writes to disk than the log itself took in figure 2. Kept in memory, the copies never reach a file.
  db.pragma('temp_store = MEMORY');
  db.pragma(`cache_size = -${pageCacheKib}`);
}
