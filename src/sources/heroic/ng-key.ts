/**
 * Heroic's ng metric_key: tiny-serializer 1.4.5 with compact sizes, fields in declaration order, no separators; read in
 * its current form and in the form before the resource map. One of the two key forms, each its own module, picked by
 * row-key.ts.
 */
import {
  checkOrder,
  count,
  Cursor,
  LONE_SURROGATE,
  nullMap,
  sortedEntries,
  utf8Encoder,
  type DecodedKey,
  type HeroicSeries,
} from './key-bytes.js';
import { INT32_MAX, NG_WIDTH_MS } from './partitions.js';

/** tiny-serializer's CompactVarIntSerializer.MAX_SIZE and CompactVarLongSerializer.MAX_SIZE. */
const VARINT_MAX_BYTES = 5;
const VARLONG_MAX_BYTES = 10;

export function encodeNg(series: HeroicSeries, base: number): Buffer {
  const parts: Uint8Array[] = [];
  writeNgString(parts, series.key, 'metric key');
  writeNgMap(parts, series.tags, 'tag');
  writeNgMap(parts, series.resource, 'resource');
  parts.push(compactVarLong(base));
  return Buffer.concat(parts);
}

function writeNgString(parts: Uint8Array[], s: string, what: string): void {
  if (LONE_SURROGATE.test(s)) {
    throw new RangeError(
      `${what} has a lone surrogate, which Heroic's ng encoder silently cuts the string at: ${JSON.stringify(s)}`,
    );
  }
  const bytes = utf8Encoder.encode(s);
  parts.push(compactVarLong(bytes.length), bytes);
}

function writeNgMap(parts: Uint8Array[], map: Readonly<Record<string, string>>, what: string): void {
  const entries = sortedEntries(map);
  parts.push(compactVarLong(entries.length));
  for (const [k, v] of entries) {
    writeNgString(parts, k, `${what} name`);
    writeNgString(parts, v, `${what} ${JSON.stringify(k)} value`);
  }
}

/**
 * tiny-serializer's compact varint, a bijective base 128 (each continuation subtracts one), on a safe integer.
 * Division by 128 keeps it exact above 2^32, where `>>>` would wrap.
 */
export function compactVarLong(value: number): Uint8Array {
  const out: number[] = [];
  let v = value;
  let rest: number;
  while ((rest = Math.floor(v / 128)) > 0) {
    out.push((v % 128) | 0x80);
    v = rest - 1;
  }
  out.push(v);
  return Uint8Array.from(out);
}

export function decodeNg(bytes: Uint8Array, withResource: boolean): DecodedKey {
  const c = new Cursor(bytes);
  const key = readNgString(c, 'metric key');
  const tags = readNgMap(c, 'tag map');
  const resource = withResource ? readNgMap(c, 'resource map') : nullMap();
  const baseAt = c.pos;
  const base = readCompactVarLong(c, 'base');
  if (base > BigInt(Number.MAX_SAFE_INTEGER))
    c.fail(`base: ${base} is over 2^53 - 1, past any timestamp we read`, baseAt);
  if (base % BigInt(NG_WIDTH_MS) !== 0n) {
    c.fail(
      `base: ${base} is not a multiple of the ng partition width ${NG_WIDTH_MS}, so Heroic did not write it`,
      baseAt,
    );
  }
  if (c.pos !== bytes.length) c.fail(`${count(bytes.length - c.pos, 'trailing byte')} after the base`, c.pos);
  return { series: { key, tags, resource }, base: Number(base), form: withResource ? 'ng' : 'ng-pre-resource' };
}

function readNgMap(c: Cursor, what: string): Record<string, string> {
  const map = nullMap();
  const size = readCompactVarInt(c, `${what} size`);
  let previous: string | undefined;
  for (let i = 0; i < size; i++) {
    const keyAt = c.pos;
    const k = readNgString(c, `${what} entry ${i} name`);
    checkOrder(c, `${what} entry ${i}`, previous, k, keyAt);
    map[k] = readNgString(c, `${what} entry ${i} value`);
    previous = k;
  }
  return map;
}

function readNgString(c: Cursor, what: string): string {
  const at = c.pos;
  const length = readCompactVarInt(c, `${what}: string length`);
  if (length > c.end - c.pos) c.fail(`${what}: string length ${length} runs past the end of the key`, at);
  return c.utf8(length, what);
}

export function readCompactVarInt(c: Cursor, what: string): number {
  const at = c.pos;
  let v = 0;
  let shift = 1;
  for (let i = 0; i < VARINT_MAX_BYTES; i++) {
    if (c.pos >= c.end) c.fail(`${what}: the key ends inside a varint`, at);
    const b = c.bytes[c.pos++]!;
    v += (b & 0x7f) * shift;
    if ((b & 0x80) === 0) {
      // Java sums into an int, so a larger size turns negative there.
      if (v > INT32_MAX) c.fail(`${what}: varint ${v} is over 2^31 - 1`, at);
      return v;
    }
    shift *= 128;
    v += shift;
  }
  return c.fail(`${what}: varint runs over ${VARINT_MAX_BYTES} bytes`, at);
}

/** BigInt, because the sum passes 2^53 before the range check can look at it. */
function readCompactVarLong(c: Cursor, what: string): bigint {
  const at = c.pos;
  let v = 0n;
  let shift = 1n;
  for (let i = 0; i < VARLONG_MAX_BYTES; i++) {
    if (c.pos >= c.end) c.fail(`${what}: the key ends inside a varint`, at);
    const b = c.bytes[c.pos++]!;
    v += BigInt(b & 0x7f) * shift;
    if ((b & 0x80) === 0) return v;
    shift <<= 7n;
    v += shift;
  }
  return c.fail(`${what}: varint runs over ${VARLONG_MAX_BYTES} bytes`, at);
}
