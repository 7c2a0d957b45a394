/**
 * Heroic's legacy metric_key: its own CompositeType-style composer, removed in 25fda501 (read at 25fda501^). One of the
 * two key forms, each its own module, picked by row-key.ts.
 */
import {
  checkOrder,
  count,
  Cursor,
  hexByte,
  isEmptyMap,
  LONE_SURROGATES,
  nullMap,
  sortedEntries,
  utf8Encoder,
  type DecodedKey,
  type HeroicSeries,
} from './key-bytes.js';
import { LEGACY_WIDTH_MS } from './partitions.js';

/** Heroic's legacy reader reads every u16 length with ByteBuffer.getShort(): from 32768 on it is negative and fails. */
const LEGACY_U16_MAX = 32767;
/**
 * CompositeComposer sums component sizes in a Java short and allocates by that sum, so Heroic could only write a key
 * whose series component plus the 8-byte base stays within 32767 bytes.
 */
const LEGACY_SERIES_MAX = LEGACY_U16_MAX - 8;

export function encodeLegacy(series: HeroicSeries, base: number): Buffer {
  if (!isEmptyMap(series.resource)) {
    throw new RangeError(
      `legacy keys have no resource map, so this series cannot be written: resource ${JSON.stringify({ ...series.resource })}`,
    );
  }
  const mapParts: Uint8Array[] = [u16(sortedEntries(series.tags).length)];
  for (const [k, v] of sortedEntries(series.tags)) {
    for (const s of [legacyString(k), legacyString(v)]) mapParts.push(u16(s.length), s);
  }
  const seriesBlob = composite([legacyString(series.key), Buffer.concat(mapParts)]);
  if (seriesBlob.length > LEGACY_SERIES_MAX) {
    throw new RangeError(
      `legacy key's series component is ${seriesBlob.length} bytes, over the ${LEGACY_SERIES_MAX} Heroic could write (it sums component sizes in a Java short)`,
    );
  }
  const baseBytes = Buffer.alloc(8);
  baseBytes.writeBigInt64BE(BigInt(base));
  return composite([seriesBlob, baseBytes]);
}

/** Flag 0x01 for "" and 0x02 before any other text; 0x00 (null) has no JS string to come from. */
function legacyString(s: string): Uint8Array {
  if (s === '') return Uint8Array.of(LEGACY_EMPTY);
  return Buffer.concat([Uint8Array.of(LEGACY_TEXT), utf8Encoder.encode(s.replace(LONE_SURROGATES, '?'))]);
}

function composite(components: Uint8Array[]): Buffer {
  return Buffer.concat(components.flatMap((c) => [u16(c.length), c, Uint8Array.of(END_OF_COMPONENT)]));
}

function u16(n: number): Uint8Array {
  return Uint8Array.of(n >>> 8, n & 0xff);
}

const LEGACY_NULL = 0x00;
const LEGACY_EMPTY = 0x01;
const LEGACY_TEXT = 0x02;
const END_OF_COMPONENT = 0x00;

export function decodeLegacy(bytes: Uint8Array): DecodedKey {
  const c = new Cursor(bytes);
  const { key, tags } = readComponent(c, bytes.length, 'the key', 'series component', (seriesEnd) => {
    const key = readComponent(c, seriesEnd, 'the series component', 'metric key component', (end) =>
      readLegacyString(c, end, 'metric key'),
    );
    const tags = readComponent(c, seriesEnd, 'the series component', 'tag map component', (end) =>
      readLegacyMap(c, end),
    );
    return { key, tags };
  });
  const base = readComponent(c, bytes.length, 'the key', 'base component', (end) => {
    if (end - c.pos !== 8) c.fail(`base component: length ${end - c.pos}, where a base is 8 bytes`, c.pos - 2);
    const at = c.pos;
    const v = new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigInt64(0);
    if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) c.fail(`base: ${v} is not a timestamp from 0 to 2^53 - 1`, at);
    if (v % BigInt(LEGACY_WIDTH_MS) !== 0n) {
      c.fail(
        `base: ${v} is not a multiple of the legacy partition width ${LEGACY_WIDTH_MS}, so Heroic did not write it`,
        at,
      );
    }
    c.pos += 8;
    return Number(v);
  });
  if (c.pos !== bytes.length) c.fail(`${count(bytes.length - c.pos, 'trailing byte')} after the base component`, c.pos);
  return { series: { key: key ?? '', tags, resource: nullMap() }, base, form: 'legacy' };
}

/**
 * One composite component inside [c.pos, limit): u16 length, a body `read` must consume whole, then the
 * end-of-component byte (always 0x00: Heroic's CompositeComposer writes EQ and its reader demands it).
 */
function readComponent<T>(c: Cursor, limit: number, within: string, what: string, read: (end: number) => T): T {
  const at = c.pos;
  const length = readLegacyLength(c, limit, what);
  if (length > limit - c.pos) c.fail(`${what}: length ${length} runs past the end of ${within}`, at);
  const end = c.pos + length;
  const value = read(end);
  if (c.pos !== end) c.fail(`${what}: ${count(end - c.pos, 'trailing byte')} inside the component`, c.pos);
  if (c.pos >= limit) c.fail(`${what}: ${within} ends before the end-of-component byte`, c.pos);
  const b = c.bytes[c.pos]!;
  if (b !== END_OF_COMPONENT) c.fail(`${what}: end-of-component byte is 0x${hexByte(b)}, not 0x00`, c.pos);
  c.pos++;
  return value;
}

function readLegacyLength(c: Cursor, limit: number, what: string): number {
  const at = c.pos;
  if (limit - at < 2) c.fail(`${what}: the data ends inside a 2-byte length`, at);
  const n = (c.bytes[at]! << 8) | c.bytes[at + 1]!;
  if (n > LEGACY_U16_MAX)
    c.fail(`${what}: length ${n} is over ${LEGACY_U16_MAX}, which Heroic reads as a negative Java short`, at);
  c.pos += 2;
  return n;
}

/** A string payload filling [c.pos, end): flag byte, then UTF-8 for flag 0x02. Null comes back as null. */
function readLegacyString(c: Cursor, end: number, what: string): string | null {
  const at = c.pos;
  if (end === at) c.fail(`${what}: empty string payload, without the flag byte`, at);
  const flag = c.bytes[c.pos++]!;
  if (flag === LEGACY_NULL || flag === LEGACY_EMPTY) {
    if (c.pos !== end)
      c.fail(
        `${what}: ${count(end - c.pos, 'byte')} after the ${flag === LEGACY_NULL ? 'null' : 'empty'} string flag`,
        c.pos,
      );
    return flag === LEGACY_NULL ? null : '';
  }
  if (flag !== LEGACY_TEXT) c.fail(`${what}: unknown string flag 0x${hexByte(flag)}`, at);
  if (c.pos === end) c.fail(`${what}: text flag 0x02 with no text (Heroic writes "" as flag 0x01)`, at);
  return c.utf8(end - c.pos, what);
}

/** u16 count, then `u16 length | string` for each name and value, with no end-of-component bytes inside. */
function readLegacyMap(c: Cursor, end: number): Record<string, string> {
  const map = nullMap();
  const size = readLegacyLength(c, end, 'tag map size');
  let previous: string | undefined;
  for (let i = 0; i < size; i++) {
    const keyAt = c.pos;
    const k = readLegacyEntryString(c, end, `tag map entry ${i} name`) ?? '';
    checkOrder(c, `tag map entry ${i}`, previous, k, keyAt);
    const v = readLegacyEntryString(c, end, `tag map entry ${i} value`);
    previous = k;
    if (v !== null) map[k] = v;
  }
  return map;
}

function readLegacyEntryString(c: Cursor, end: number, what: string): string | null {
  const at = c.pos;
  const length = readLegacyLength(c, end, what);
  if (length > end - c.pos) c.fail(`${what}: string length ${length} runs past the end of the tag map`, at);
  return readLegacyString(c, c.pos + length, what);
}
