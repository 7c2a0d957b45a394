/**
 * LMDB key layouts of the embedded store's tables. LMDB compares keys as unsigned bytes, like Cassandra compares
 * blobs, so each layout puts the partition first and orders what follows the way KairosDB's clustering does.
 */
import { decodeTagString, encodeTagString } from '../format/index.js';
import { murmur3x86_32 } from '../format/murmur3.js';
import type { RowKey } from '../store.js';
import type { KeyLimits } from '../../model/key-limits.js';

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** `data_points`: [u16 row key length][row key bytes][u32 first column of the block]. */
export function partitionPrefix(rowKeyBytes: Uint8Array): Buffer {
  return lengthPrefixed(rowKeyBytes, 'row key');
}

/** A partition's row key bytes as a string, what the store's notes and its head are keyed by. */
export function partitionId(rowKeyBytes: Uint8Array): string {
  return Buffer.from(rowKeyBytes.buffer, rowKeyBytes.byteOffset, rowKeyBytes.length).toString('latin1');
}

export function blockKey(prefix: Uint8Array, firstColumn: number): Buffer {
  const key = Buffer.allocUnsafe(prefix.length + 4);
  key.set(prefix, 0);
  key.writeUInt32BE(firstColumn, prefix.length);
  return key;
}

/** Sorts after every block key of the partition (block keys have exactly 4 bytes after the prefix). */
export function partitionEnd(prefix: Uint8Array): Buffer {
  return Buffer.concat([prefix, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff])]);
}

export function blockFirstColumn(key: Uint8Array): number {
  return (
    ((key[key.length - 4]! << 24) >>> 0) +
    (key[key.length - 3]! << 16) +
    (key[key.length - 2]! << 8) +
    key[key.length - 1]!
  );
}

/** `row_key_time_index` partition of a metric: [metric][0x00]; a row time follows as a sortable i64. */
export function metricPrefix(metric: string): Buffer {
  return Buffer.concat([utf8.encode(metric), ZERO]);
}

export function rowTimeKey(metric: string, rowTime: number): Buffer {
  return Buffer.concat([metricPrefix(metric), sortableInt64(rowTime)]);
}

/** Exclusive upper bound that still takes in `rowTime` itself (a longer key sorts after its prefix). */
export function rowTimeKeyAfter(metric: string, rowTime: number): Buffer {
  return Buffer.concat([rowTimeKey(metric, rowTime), ZERO]);
}

export function rowTimeOfKey(key: Uint8Array, metricPrefixLength: number): number {
  return readSortableInt64(key, metricPrefixLength);
}

/** `row_keys`: [metric][0x00][sortable row time][data type][0x00][tag string]. */
export function rowKeysKey(key: RowKey): Buffer {
  return Buffer.concat([
    rowTimeKey(key.metric, key.rowTime),
    utf8.encode(key.dataType),
    ZERO,
    utf8.encode(encodeTagString(key.tags)),
  ]);
}

export function decodeRowKeysKey(metric: string, key: Uint8Array, metricPrefixLength: number): RowKey {
  return decodeTypeAndTags(metric, readSortableInt64(key, metricPrefixLength), key, metricPrefixLength + 8);
}

/**
 * The tag index: [metric][0x00][sortable row time][u32 hash of the escaped `tag=value`][data type][0x00][tag string].
 * A hash keeps the key as short as the row_keys key plus 4 bytes, whatever the pair's length; two pairs with one hash
 * share a range, and readers keep only the series that have the pair.
 */
export function tagIndexPrefix(metric: string, rowTime: number, tag: string, value: string): Buffer {
  const pair = utf8.encode(encodeTagString({ [tag]: value }));
  const hash = Buffer.allocUnsafe(4);
  hash.writeUInt32BE(murmur3x86_32(pair, 0) >>> 0, 0);
  return Buffer.concat([rowTimeKey(metric, rowTime), hash]);
}

export function tagIndexKey(key: RowKey, tag: string): Buffer {
  const prefix = tagIndexPrefix(key.metric, key.rowTime, tag, key.tags[tag]!);
  return Buffer.concat([prefix, utf8.encode(key.dataType), ZERO, utf8.encode(encodeTagString(key.tags))]);
}

/** Sorts after every key of the pair's range (UTF-8 holds no 0xFF, and the data type follows the prefix). */
export function tagIndexEnd(prefix: Buffer): Buffer {
  return Buffer.concat([prefix, Buffer.from([0xff])]);
}

export function decodeTagIndexKey(metric: string, rowTime: number, key: Uint8Array, prefixLength: number): RowKey {
  return decodeTypeAndTags(metric, rowTime, key, prefixLength);
}

/** The series of a key whose layout ends in [data type][0x00][tag string] from `typeStart` on (row_keys, tag index). */
function decodeTypeAndTags(metric: string, rowTime: number, key: Uint8Array, typeStart: number): RowKey {
  const typeEnd = key.indexOf(0, typeStart);
  return {
    metric,
    rowTime,
    dataType: utf8Decoder.decode(key.subarray(typeStart, typeEnd)),
    tags: decodeTagString(utf8Decoder.decode(key.subarray(typeEnd + 1))),
  };
}

/** The metric of a row_keys key (a metric name holds no U+0000) and the length of its prefix. */
export function metricOfRowKeysKey(key: Uint8Array): { metric: string; prefixLength: number } {
  const end = key.indexOf(0);
  return { metric: utf8Decoder.decode(key.subarray(0, end)), prefixLength: end + 1 };
}

/** `string_index`: [partition name][0x00][name]. */
export function stringIndexKey(partition: string, name: string): Buffer {
  return Buffer.concat([utf8.encode(partition), ZERO, utf8.encode(name)]);
}

/** The `string_index` partition of metric names. */
export const METRIC_NAMES = 'metric_names';

/** The `string_index` keys of the metric names that start with `prefix`. */
export function metricNamesRange(prefix: string): { start: Buffer; end: Buffer } {
  const start = stringIndexKey(METRIC_NAMES, prefix);
  // 0xFF never occurs in UTF-8, so it bounds every name that starts with the prefix.
  return { start, end: Buffer.concat([start, Buffer.from([0xff])]) };
}

/**
 * What the keys above can hold when LMDB takes keys of at most `maxKeySize` bytes (lmdb-js: 1978). Every key that
 * holds a user string is that string plus fixed bytes, so the fixed bytes are measured on keys built from empty
 * strings: a metric name goes into string_index (with the 0xFF of a prefix scan: 14 bytes) and row_key_time_index
 * (10 with its scan bound); a row key into data_points (7: its u16 length and the 5-byte partition end; a block key
 * takes 6). row_keys holds metric, data type and tag string in 10 bytes, the tag index in 14, fewer than the row key's
 * 11 + 7.
 */
export function embeddedKeyLimits(maxKeySize: number): KeyLimits {
  const noRowKey = partitionPrefix(new Uint8Array(0));
  const metricBytes = Math.max(metricNamesRange('').end.length, rowTimeKeyAfter('', 0).length);
  const rowKeyBytes = Math.max(partitionEnd(noRowKey).length, blockKey(noRowKey, 0).length);
  return {
    store: "the embedded store's",
    maxMetricBytes: maxKeySize - metricBytes,
    maxRowKeyBytes: maxKeySize - rowKeyBytes,
  };
}

export function stringIndexName(key: Uint8Array, partitionPrefixLength: number): string {
  return utf8Decoder.decode(key.subarray(partitionPrefixLength));
}

/** `spec`: [spec_type][0x00][name]. */
export function specKey(specType: string, name: string): Buffer {
  return Buffer.concat([utf8.encode(specType), ZERO, utf8.encode(name)]);
}

/** Big-endian with the sign bit flipped, so byte order is numeric order for negative row times too. */
function sortableInt64(value: number): Buffer {
  const bytes = Buffer.allocUnsafe(8);
  bytes.writeBigInt64BE(BigInt(value));
  bytes[0]! ^= 0x80;
  return bytes;
}

function readSortableInt64(key: Uint8Array, offset: number): number {
  const bytes = Buffer.from(key.subarray(offset, offset + 8));
  bytes[0]! ^= 0x80;
  return Number(bytes.readBigInt64BE(0));
}

const ZERO = Buffer.from([0]);

/**
 * `service_index`: [u16 service length][service][u16 service key length][service key][key], all UTF-8. Lengths, not
 * separators, since the names are any text; a partition's keys sort by their bytes after its prefix, as Cassandra's.
 */
export function serviceIndexPrefix(service: string, serviceKey?: string): Buffer {
  const parts = [lengthPrefixed(utf8.encode(service), 'service')];
  if (serviceKey !== undefined) parts.push(lengthPrefixed(utf8.encode(serviceKey), 'service key'));
  return Buffer.concat(parts);
}

export function serviceIndexKey(service: string, serviceKey: string, key: string): Buffer {
  return Buffer.concat([serviceIndexPrefix(service, serviceKey), utf8.encode(key)]);
}

/** The service key and key of a `service_index` key under `serviceIndexPrefix(service)`. */
export function decodeServiceIndexKey(
  key: Uint8Array,
  servicePrefixLength: number,
): { serviceKey: string; key: string } {
  const length = (key[servicePrefixLength]! << 8) | key[servicePrefixLength + 1]!;
  const start = servicePrefixLength + 2;
  return {
    serviceKey: utf8Decoder.decode(key.subarray(start, start + length)),
    key: utf8Decoder.decode(key.subarray(start + length)),
  };
}

/** [u16 length][bytes]: how the layouts above put a variable-length part before what follows it. */
function lengthPrefixed(bytes: Uint8Array, what: string): Buffer {
  if (bytes.length > 0xffff) throw new RangeError(`${what} of ${bytes.length} bytes is over the 65535-byte limit`);
  const out = Buffer.allocUnsafe(2 + bytes.length);
  out.writeUInt16BE(bytes.length, 0);
  out.set(bytes, 2);
  return out;
}
