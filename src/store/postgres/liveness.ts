/**
 * Liveness and notices in SQL. Each process holds a session advisory lock keyed by its lease owner name for as long
 * as it lives (on its change feed's connection); the server drops it when that connection ends, a kill -9 included,
 * so a lease whose owner's lock is gone belongs to a process that is gone.
 */

/** The advisory lock space of crewd's liveness locks: the first key of the two-key form ('crew' in ASCII). */
export const livenessLockSpace = 0x63726577;

/** The lock key of an owner name: what `pg_advisory_lock(space, key)` shows as `pg_locks.objid`. */
export function livenessKeySql(owner: string): string {
  return `(hashtext(${owner})::bigint & 4294967295)::oid`;
}

/** Takes this connection's liveness lock for `$1`, the owner name; false when another session holds it. */
export const takeLivenessLock = `SELECT pg_try_advisory_lock(${livenessLockSpace}, hashtext($1)) AS locked`;

/** The keys of the liveness locks held in this database right now. */
export const liveOwnerKeys = `SELECT lock.objid FROM pg_locks AS lock
  WHERE lock.locktype = 'advisory' AND lock.granted AND lock.objsubid = 2
    AND lock.classid = ${livenessLockSpace}::oid
    AND lock.database = (SELECT oid FROM pg_database WHERE datname = current_database())`;

/** The channel of this schema's notices; a channel name holds at most 63 bytes. */
export const noticeChannelSql = `left('crewd ' || current_schema(), 63)`;

/**
 * Sends the notice of one changed execution row, delivered when the statement's transaction commits. `:origin`
 * names the process that writes, so it can skip its own notices.
 */
export function noticeSql(row: string): string {
  return `pg_notify(${noticeChannelSql}, json_build_object('o', :origin::text, 'id', ${row}.id, 's', ${row}.state,
    'l', ${row}.lease_owner, 'r', ${row}.revision,
    't', round(extract(epoch FROM clock_timestamp()) * 1000))::text)`;
}
