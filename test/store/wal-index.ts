import { endianness } from 'node:os';
import { openSync, readSync, closeSync } from 'node:fs';

export interface WalIndex {
  /** Frames in the WAL since it last started over. */
  readonly frames: number;
  /** How many of them a checkpoint has copied into the database file. */
  readonly backfilled: number;
  /** The WAL's salt, which changes each time the WAL starts over. */
  readonly salt: string;
}

/**
 * Reads the WAL's progress from the shared-memory index SQLite keeps beside the database (`<file>-shm`), as laid
 * out in https://www.sqlite.org/walformat.html, without opening a connection that could checkpoint it.
 */
export function readWalIndex(databaseFile: string): WalIndex {
  const header = Buffer.alloc(100);
  const fd = openSync(`${databaseFile}-shm`, 'r');
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  const read = (offset: number): number =>
    endianness() === 'LE' ? header.readUInt32LE(offset) : header.readUInt32BE(offset);
  return { frames: read(16), backfilled: read(96), salt: `${read(32)}:${read(36)}` };
}
