/**
 * The embedded store's own tag index (TAG_INDEXED_METRICS, tag-index.ts): an entry per indexed tag of each series,
 * holding the expiry of the series' row_keys entry, found by metric, row time, tag and value.
 */
import type { Database } from 'lmdb';
import type { RowKey, TaggedRowKeys } from '../store.js';
import { coverageEntries, hasTag, indexedTagsOf, type TagIndexConfig } from '../tag-index.js';
import {
  decodeRowKeysKey,
  decodeTagIndexKey,
  metricOfRowKeysKey,
  tagIndexEnd,
  tagIndexKey,
  tagIndexPrefix,
} from './keys.js';
import { isExpired, putIndex } from './index-rows.js';

export class TagIndexTable {
  constructor(
    private readonly table: Database<Buffer, Buffer>,
    private readonly config: TagIndexConfig,
  ) {}

  /** What the index is built for, as the spec table keeps it. */
  get built(): string {
    return JSON.stringify(coverageEntries(this.config));
  }

  /** The entries of a series' indexed tags, expiring with its row_keys entry; within a write transaction. */
  put(key: RowKey, expiry: number): void {
    const indexed = indexedTagsOf(this.config, key.metric);
    if (indexed === undefined) return;
    for (const tag of Object.keys(key.tags)) {
      if (indexed === 'all' || indexed.has(tag)) putIndex(this.table, tagIndexKey(key, tag), expiry);
    }
  }

  /** Removes a series' entries, of whatever configuration put them; within a write transaction. */
  remove(key: RowKey): void {
    for (const tag of Object.keys(key.tags)) this.table.removeSync(tagIndexKey(key, tag));
  }

  /** Builds the index again from every series in row_keys; within a write transaction. */
  rebuild(rowKeys: Database<Buffer, Buffer>): void {
    for (const key of [...this.table.getKeys()]) this.table.removeSync(key);
    for (const { key, value } of rowKeys.getRange()) {
      const { metric, prefixLength } = metricOfRowKeysKey(key);
      if (indexedTagsOf(this.config, metric) === undefined) continue;
      this.put(decodeRowKeysKey(metric, key, prefixLength), value.readUInt32BE(0));
    }
  }

  /** The series of a metric and row time with `tag` = `value`; incomplete past `limit` entries. */
  read(metric: string, rowTime: number, tag: string, value: string, limit: number | undefined, nowSeconds: number) {
    const prefix = tagIndexPrefix(metric, rowTime, tag, value);
    const keys: RowKey[] = [];
    let entries = 0;
    const range = { start: prefix, end: tagIndexEnd(prefix), ...(limit !== undefined ? { limit: limit + 1 } : {}) };
    for (const { key, value: expiry } of this.table.getRange(range)) {
      if (limit !== undefined && ++entries > limit) return { keys, complete: false } satisfies TaggedRowKeys;
      if (isExpired(expiry, nowSeconds)) continue;
      const found = decodeTagIndexKey(metric, rowTime, key, prefix.length);
      if (hasTag(found.tags, tag, value)) keys.push(found);
    }
    return { keys, complete: true } satisfies TaggedRowKeys;
  }
}
