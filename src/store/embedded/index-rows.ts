/**
 * The embedded store's index rows (row_key_time_index, row_keys, tag_index) hold their expiry, u32 epoch seconds
 * (0 = never), like a Cassandra cell's TTL.
 */
import type { Database } from 'lmdb';
import { covers } from './partition-notes.js';

/** Puts an index row unless it is there already with an expiry as late; returns the expiry it has now. */
export function putIndex(table: Database<Buffer, Buffer>, key: Buffer, expiry: number): number {
  const current = table.get(key);
  if (current !== undefined) {
    const old = current.readUInt32BE(0);
    if (covers(old, expiry)) return old;
  }
  const value = Buffer.allocUnsafe(4);
  value.writeUInt32BE(expiry, 0);
  table.putSync(key, value);
  return expiry;
}

export function isExpired(value: Buffer, nowSeconds: number): boolean {
  const expiry = value.readUInt32BE(0);
  return expiry !== 0 && expiry <= nowSeconds;
}

/** The expiry of a row written at `nowMs` with a TTL. */
export function expiryOf(ttlSeconds: number, nowMs: number): number {
  return ttlSeconds === 0 ? 0 : Math.floor(nowMs / 1000) + ttlSeconds;
}
