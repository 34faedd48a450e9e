import { randomUUID } from 'node:crypto';

/**
 * A UUIDv7: the millisecond it was made, then 74 random bits. Rows keyed by such ids are inserted in about the
 * order of their keys, so the inserts of one commit share the last pages of SQLite's indexes instead of landing on
 * one page each at random. The random part is taken from `randomUUID`, which draws from a cached pool of entropy
 * (a call to `crypto.getRandomValues` for each id cost several microseconds). Ids made in the same millisecond are
 * in no particular order among themselves.
 */
export function timeOrderedId(now: number = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  // A version 4 UUID's last 19 digits: 3 random, the variant with 2 random bits, 3 random, 12 random.
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}
