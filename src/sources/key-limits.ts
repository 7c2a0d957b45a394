/**
 * The one check of user strings against the key sizes of the store they would go into (its `limits`), shared by
 * writes, queries and deletes, so a name or a series too large for a key is a 400 before any store call.
 */
import { InputError } from '../model/errors.js';
import { memoByFrozen } from '../model/interned.js';
import { encodeTagString } from '../store/format/index.js';
import type { KeyLimits } from '../model/key-limits.js';
import type { Tags } from '../model/series.js';

/**
 * UTF-8 bytes as TextEncoder and the Cassandra driver write them (a lone surrogate is 3 bytes, U+FFFD). Row keys
 * write a lone surrogate as Java's one-byte `?`, so counting 3 never lets a key through that does not fit.
 */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** A metric name the store can hold: every index key that holds a metric name fits (`field` names it in errors). */
export function checkMetricName(limits: KeyLimits, metric: string, field: string): void {
  const bytes = utf8Bytes(metric);
  if (bytes > limits.maxMetricBytes) {
    throw new InputError(
      field,
      metric,
      `must be at most ${limits.maxMetricBytes} bytes in UTF-8, the longest metric name ${limits.store} keys hold (it is ${bytes} bytes)`,
    );
  }
}

/**
 * A prefix of metric names: no longer than a metric name can be. The embedded store's prefix scan ends at the
 * prefix plus one byte, which the metric name limit already leaves room for.
 */
export function checkMetricPrefix(limits: KeyLimits, prefix: string, field: string): void {
  checkMetricName(limits, prefix, field);
}

/**
 * The keys one series of a write needs: its data_points row key and, where the store limits it, its row_keys
 * entry. `tagsField` names the tags in errors: with a valid metric name, only the tags can make these too large.
 */
export function checkSeriesKeys(
  limits: KeyLimits,
  metric: string,
  dataType: string,
  tags: Tags,
  tagsField: string,
): void {
  const typeBytes = utf8Bytes(dataType);
  const rowKey = rowKeyBytes(utf8Bytes(metric), typeBytes, tagStringBytes(tags));
  if (rowKey > limits.maxRowKeyBytes) {
    throw new InputError(
      tagsField,
      tags,
      `make a row key of ${rowKey} bytes with the metric name, over the ${limits.maxRowKeyBytes} bytes ${limits.store} keys hold`,
    );
  }
  if (limits.maxRowKeysTagsBytes !== undefined) {
    const clustering = typeBytes + tagMapBytesOf(tags);
    if (clustering > limits.maxRowKeysTagsBytes) {
      throw new InputError(
        tagsField,
        tags,
        `take ${clustering} bytes as a row_keys entry (data type and tag map), over the ${limits.maxRowKeysTagsBytes} bytes ${limits.store} keys hold`,
      );
    }
  }
}

/**
 * A typed data_points row key (format/row-key.ts): metric, 0x00, 8-byte row time, 0x00 marker, length byte, data
 * type, tag string.
 */
export function rowKeyBytes(metricBytes: number, typeBytes: number, tagStringBytes: number): number {
  return metricBytes + 1 + 8 + 2 + typeBytes + tagStringBytes;
}

/** A `frozen<map<text, text>>` as Cassandra serializes it: an int count, then an int length before each name and value. */
export function tagMapBytes(tags: Tags): number {
  let bytes = 4;
  for (const [name, value] of Object.entries(tags)) bytes += 8 + utf8Bytes(name) + utf8Bytes(value);
  return bytes;
}

// Counted once for an interned series' frozen tags (src/model/interned.ts), not for each series of every write.
const tagStringBytes = memoByFrozen((tags: Tags) => utf8Bytes(encodeTagString(tags)));
const tagMapBytesOf = memoByFrozen(tagMapBytes);
