/**
 * Heroic's Bigtable row keys, column qualifiers and cell values (docs/heroic-bigtable.md): tiny-serializer's compact
 * varints like the ng Cassandra key, but each string of the series carries two lengths (UTF-8 bytes, then UTF-16 code
 * units), the base is a fixed 8-byte long, and the resource map, when there is one, follows as an optional field
 * whose strings carry one length. Pure: no I/O.
 */
import {
  checkOrder,
  count,
  Cursor,
  isEmptyMap,
  LONE_SURROGATE,
  nullMap,
  sortedEntries,
  utf8Encoder,
  type DecodedKey,
  type HeroicSeries,
} from './key-bytes.js';
import { compactVarLong, readCompactVarInt } from './ng-key.js';

/** Heroic's Bigtable period: 2^32 ms, the offset's whole unsigned range. */
export const BIGTABLE_WIDTH_MS = 4294967296;

/** The list of optional fields after the base holds one entry: field 0, the resource map. */
const RESOURCE_FIELD = 0;

/**
 * The row key of a series and base. Any non-negative base is written, as Heroic's serializer writes any (its own golden
 * vector has base 1); the layout writes only aligned ones (row-key.ts).
 */
export function encodeBigtableKey(series: HeroicSeries, base: number): Buffer {
  if (!Number.isSafeInteger(base) || base < 0)
    throw new RangeError(`bigtable base must be a non-negative safe integer: ${base}`);
  const parts: Uint8Array[] = [];
  writeTwoLengths(parts, series.key, 'metric key');
  const tags = sortedEntries(series.tags);
  parts.push(compactVarLong(tags.length));
  for (const [k, v] of tags) {
    writeTwoLengths(parts, k, 'tag name');
    writeTwoLengths(parts, v, `tag ${JSON.stringify(k)} value`);
  }
  const baseBytes = Buffer.alloc(8);
  baseBytes.writeBigInt64BE(BigInt(base));
  parts.push(baseBytes);
  if (!isEmptyMap(series.resource)) {
    const payload: Uint8Array[] = [];
    const resource = sortedEntries(series.resource);
    payload.push(compactVarLong(resource.length));
    for (const [k, v] of resource) {
      writeOneLength(payload, k, 'resource name');
      writeOneLength(payload, v, `resource ${JSON.stringify(k)} value`);
    }
    const body = Buffer.concat(payload);
    parts.push(compactVarLong(1), compactVarLong(RESOURCE_FIELD), compactVarLong(body.length), body);
  }
  return Buffer.concat(parts);
}

/**
 * The row key prefix every row of a metric starts with (its encoded key): what a scan for the metric's series reads.
 */
export function bigtableMetricPrefix(metric: string): Buffer {
  const parts: Uint8Array[] = [];
  writeTwoLengths(parts, metric, 'metric key');
  return Buffer.concat(parts);
}

/**
 * Decodes a row key Heroic's Bigtable backend could have written; throws a KeyError naming the byte otherwise. As for
 * the Cassandra keys, only what Heroic's encoder produces is accepted (maps in order without duplicates, valid UTF-8
 * whose UTF-16 length is the one written, no empty resource part, and bases that are multiples of 2^32 unless `aligned`
 * is false), so a key names one partition.
 */
export function decodeBigtableKey(bytes: Uint8Array, aligned = true): DecodedKey {
  const c = new Cursor(bytes);
  const key = readTwoLengths(c, 'metric key');
  const tags = nullMap();
  const size = readCompactVarInt(c, 'tag map size');
  let previous: string | undefined;
  for (let i = 0; i < size; i++) {
    const at = c.pos;
    const k = readTwoLengths(c, `tag map entry ${i} name`);
    checkOrder(c, `tag map entry ${i}`, previous, k, at);
    tags[k] = readTwoLengths(c, `tag map entry ${i} value`);
    previous = k;
  }
  const baseAt = c.pos;
  if (c.end - c.pos < 8) c.fail('base: the key ends inside its 8 bytes', baseAt);
  const base = Buffer.from(bytes.buffer, bytes.byteOffset + c.pos, 8).readBigInt64BE();
  c.pos += 8;
  if (base < 0n || base > BigInt(Number.MAX_SAFE_INTEGER))
    c.fail(`base: ${base} is outside 0 to 2^53 - 1, past any timestamp we read`, baseAt);
  if (aligned && base % BigInt(BIGTABLE_WIDTH_MS) !== 0n)
    c.fail(`base: ${base} is not a multiple of 2^32: no period starts there`, baseAt);
  const resource = c.pos < c.end ? readResource(c) : nullMap();
  return { series: { key, tags, resource }, base: Number(base), form: 'bigtable' };
}

/** The column qualifier of a timestamp in the period at `base`: its offset as 4 bytes big-endian. */
export function bigtableQualifier(offset: number): Buffer {
  const q = Buffer.alloc(4);
  q.writeUInt32BE(offset);
  return q;
}

/** The offset a qualifier holds; undefined when it is not 4 bytes (not a qualifier Heroic wrote). */
export function bigtableOffset(qualifier: Uint8Array): number | undefined {
  if (qualifier.length !== 4) return undefined;
  return ((qualifier[0]! << 24) | (qualifier[1]! << 16) | (qualifier[2]! << 8) | qualifier[3]!) >>> 0;
}

/** A `points` cell value: the double, 8 bytes big-endian. */
export function bigtableValue(value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(value);
  return b;
}

/** The double of a `points` cell; undefined when it is not 8 bytes. */
export function bigtableDouble(value: Uint8Array): number | undefined {
  if (value.length !== 8) return undefined;
  return new DataView(value.buffer, value.byteOffset, 8).getFloat64(0, false);
}

function readResource(c: Cursor): Record<string, string> {
  const at = c.pos;
  const fields = readCompactVarInt(c, 'optional fields count');
  if (fields !== 1) c.fail(`optional fields: ${fields} fields, where Heroic writes one (the resource map)`, at);
  const fieldAt = c.pos;
  const field = readCompactVarInt(c, 'optional field');
  if (field !== RESOURCE_FIELD) c.fail(`optional field: ordinal ${field}, where Heroic writes 0 (resource)`, fieldAt);
  const lengthAt = c.pos;
  const length = readCompactVarInt(c, 'resource length');
  if (length !== c.end - c.pos)
    c.fail(`resource length: ${length}, but ${count(c.end - c.pos, 'byte')} follow it`, lengthAt);
  const sizeAt = c.pos;
  const size = readCompactVarInt(c, 'resource map size');
  if (size === 0) c.fail('resource map: empty, where Heroic writes no resource part', sizeAt);
  const resource = nullMap();
  let previous: string | undefined;
  for (let i = 0; i < size; i++) {
    const keyAt = c.pos;
    const k = readOneLength(c, `resource map entry ${i} name`);
    checkOrder(c, `resource map entry ${i}`, previous, k, keyAt);
    resource[k] = readOneLength(c, `resource map entry ${i} value`);
    previous = k;
  }
  if (c.pos !== c.end) c.fail(`${count(c.end - c.pos, 'trailing byte')} after the resource map`, c.pos);
  return resource;
}

function utf8Of(s: string, what: string): Uint8Array {
  // Java's encoder would put `?` for it, and the UTF-16 length written beside would no longer match the bytes.
  if (LONE_SURROGATE.test(s)) throw new RangeError(`${what} has a lone surrogate: ${JSON.stringify(s)}`);
  return utf8Encoder.encode(s);
}

function writeTwoLengths(parts: Uint8Array[], s: string, what: string): void {
  const bytes = utf8Of(s, what);
  parts.push(compactVarLong(bytes.length), compactVarLong(s.length), bytes);
}

function writeOneLength(parts: Uint8Array[], s: string, what: string): void {
  const bytes = utf8Of(s, what);
  parts.push(compactVarLong(bytes.length), bytes);
}

function readTwoLengths(c: Cursor, what: string): string {
  const at = c.pos;
  const length = readCompactVarInt(c, `${what}: UTF-8 length`);
  const units = readCompactVarInt(c, `${what}: UTF-16 length`);
  if (length > c.end - c.pos) c.fail(`${what}: string length ${length} runs past the end of the key`, at);
  const s = c.utf8(length, what);
  if (s.length !== units) c.fail(`${what}: ${count(s.length, 'UTF-16 unit')}, where the key says ${units}`, at);
  return s;
}

function readOneLength(c: Cursor, what: string): string {
  const at = c.pos;
  const length = readCompactVarInt(c, `${what}: string length`);
  if (length > c.end - c.pos) c.fail(`${what}: string length ${length} runs past the end of the key`, at);
  return c.utf8(length, what);
}
