import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { applyConnectionSettings } from './connection-settings.ts';

describe('applyConnectionSettings', () => {
  it('keeps the page cache at 2 MiB, commits unsynced (the store syncs them off the event loop), foreign keys on, statement journals in memory', () => {
    const db = new Database(':memory:');
    try {
      applyConnectionSettings(db);
      // Negative: KiB rather than pages.
      expect(db.pragma('cache_size', { simple: true })).toBe(-2000);
      expect(db.pragma('synchronous', { simple: true })).toBe(1);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      // 2: MEMORY.
      expect(db.pragma('temp_store', { simple: true })).toBe(2);
    } finally {
      db.close();
    }
  });
});
