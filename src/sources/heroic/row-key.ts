// Heroic's Cassandra `metrics.metric_key` blobs and partition maths (docs/heroic-layout.md: ng
// and legacy keys): encode the key Heroic writes for a (series, base), decode any key Heroic could have written, and
// move between timestamps and (base, data_timestamp_offset). Pure: no I/O, no driver.

export type HeroicSchema = 'ng' | 'legacy';

/**
 * Heroic's Series: key (the metric name), tags and resource. Decoded maps are null-prototype objects, so a tag named
 * `__proto__` is an ordinary entry; encoders write keys in JS default sort order, which is Java's String.compareTo.
 */
export interface HeroicSeries {
  readonly key: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly resource: Readonly<Record<string, string>>;
}

/** How a decoded key was written: 'ng' (current, with the resource map), 'ng-pre-resource' (ng written before Heroic commit 5a6382e1: no resource map), 'legacy'. */
type KeyForm = 'ng' | 'ng-pre-resource' | 'legacy';

export interface DecodedKey {
  readonly series: HeroicSeries;
  readonly base: number;
  readonly form: KeyForm;
}

/** ng's MAX_WIDTH is Integer.MAX_VALUE, not 2^32: partitions are one millisecond short of 2^31. */
export const NG_WIDTH_MS = 2147483647;
export const LEGACY_WIDTH_MS = 4294967296;

export function widthOf(schema: HeroicSchema): number {
  const width = WIDTH_MS.get(schema);
  if (width === undefined)
    throw new RangeError(`unknown Heroic schema: ${JSON.stringify(schema)} (expected "ng" or "legacy")`);
  return width;
}

/** Partition base of a timestamp (ms >= 0). */
export function baseOf(schema: HeroicSchema, timestampMs: number): number {
  const width = widthOf(schema);
  checkTimestamp(timestampMs);
  // Exact in doubles: both operands are safe integers.
  return timestampMs - (timestampMs % width);
}

/**
 * The `data_timestamp_offset` int column of a timestamp in the partition at `base` (ng: ts - base; legacy:
 * ts - base - 2^31). Throws a RangeError when the timestamp is not in that partition.
 */
export function columnOf(schema: HeroicSchema, base: number, timestampMs: number): number {
  const width = widthOf(schema);
  checkTimestamp(timestampMs);
  checkBase(schema, base);
  const offset = timestampMs - base;
  if (offset < 0 || offset >= width) {
    throw new RangeError(
      `timestamp ${timestampMs} is outside the ${schema} partition at base ${base} (${base} to ${base + width - 1})`,
    );
  }
  // Legacy shifts offsets into the whole signed int range so that signed column order is time order.
  return schema === 'ng' ? offset : offset - LEGACY_SHIFT;
}

/**
 * The timestamp of a column read from the partition at `base`. Any int32 column is accepted, as Heroic's reader
 * (`base + offset`) accepts it, though Heroic only writes ng columns in 0..2^31-2.
 */
export function timestampOf(schema: HeroicSchema, base: number, column: number): number {
  widthOf(schema);
  checkBase(schema, base);
  if (!Number.isInteger(column) || column < INT32_MIN || column > INT32_MAX) {
    throw new RangeError(`column must be a signed 32-bit integer: ${column}`);
  }
  return schema === 'ng' ? base + column : base + column + LEGACY_SHIFT;
}

/**
 * The metric_key blob Heroic writes today for the schema: ng with the resource map; legacy as a composite, which has
 * no resource, so a non-empty resource throws. A lone surrogate throws in ng (Heroic's encoder would silently cut
 * the string there) and becomes `?` in legacy (Java's getBytes).
 */
export function encodeKey(schema: HeroicSchema, series: HeroicSeries, base: number): Buffer {
  widthOf(schema);
  checkBase(schema, base);
  return schema === 'ng' ? encodeNg(series, base) : encodeLegacy(series, base);
}

/**
 * Decodes a metric_key blob written in the schema's form(s): ng tries the current form, then the pre-resource form;
 * each must consume every byte. Returns the reason when it cannot; never throws for bad bytes.
 *
 * Only what Heroic's encoders can produce is accepted, so a decoded key names exactly one partition: bases must be
 * aligned multiples of the width (Heroic computes them as `ts - ts % width`; an unaligned base means the bytes are not
 * a key of this schema), map keys strictly ascending (duplicates and disorder are errors), UTF-8 valid (Heroic's
 * ng reader also rejects it; its legacy reader would have put U+FFFD in). The one leniency is legacy null strings,
 * which Heroic wrote for null keys and values: a null key or tag name decodes as "", and an entry whose value is null
 * is dropped, as Heroic's legacy MapSerializer drops it. Re-encoding such a key does not give back its bytes, so
 * callers read partitions with the bytes they enumerated, not with re-encoded ones.
 */
export function decodeKey(schema: HeroicSchema, bytes: Uint8Array): DecodedKey | { readonly error: string } {
  widthOf(schema);
  if (schema === 'legacy') return attempt(() => decodeLegacy(bytes));
  const current = attempt(() => decodeNg(bytes, true));
  if (!('error' in current)) return current;
  const preResource = attempt(() => decodeNg(bytes, false));
  if (!('error' in preResource)) return preResource;
  return { error: `${current.error}; read as a pre-resource key (no resource map): ${preResource.error}` };
}

/** A Map, so that a schema named `toString` or `__proto__` from a config file is unknown, not inherited. */
const WIDTH_MS: ReadonlyMap<string, number> = new Map([
  ['ng', NG_WIDTH_MS],
  ['legacy', LEGACY_WIDTH_MS],
]);
const LEGACY_SHIFT = 2 ** 31;
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
/** tiny-serializer's CompactVarIntSerializer.MAX_SIZE and CompactVarLongSerializer.MAX_SIZE. */
const VARINT_MAX_BYTES = 5;
const VARLONG_MAX_BYTES = 10;
/** Heroic's legacy reader reads every u16 length with ByteBuffer.getShort(): from 32768 on it is negative and fails. */
const LEGACY_U16_MAX = 32767;
/**
 * CompositeComposer sums component sizes in a Java short and allocates by that sum, so Heroic could only write a key
 * whose series component plus the 8-byte base stays within 32767 bytes.
 */
const LEGACY_SERIES_MAX = LEGACY_U16_MAX - 8;

const utf8Encoder = new TextEncoder();
/** Java's UTF-8 decoder keeps a leading BOM; `newDecoder()` reports malformed input, as `fatal` does. */
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Thrown inside the decoders only; `attempt` turns it into `{ error }`, so other exceptions still surface as bugs. */
class KeyError extends Error {}

function attempt(decode: () => DecodedKey): DecodedKey | { readonly error: string } {
  try {
    return decode();
  } catch (e) {
    if (e instanceof KeyError) return { error: e.message };
    throw e;
  }
}

function checkTimestamp(timestampMs: number): void {
  // Java's % makes negative timestamps' bases lie above them; no Heroic data we read has them.
  if (!Number.isSafeInteger(timestampMs) || timestampMs < 0) {
    throw new RangeError(`timestamp must be a non-negative safe integer of milliseconds: ${timestampMs}`);
  }
}

function checkBase(schema: HeroicSchema, base: number): void {
  const width = WIDTH_MS.get(schema)!;
  if (!Number.isSafeInteger(base) || base < 0 || base % width !== 0) {
    throw new RangeError(`${schema} base must be a non-negative safe integer multiple of ${width}: ${base}`);
  }
}

function sortedEntries(map: Readonly<Record<string, string>>): Array<[string, string]> {
  return Object.keys(map)
    .sort()
    .map((k) => [k, map[k]!]);
}

function isEmptyMap(map: Readonly<Record<string, string>>): boolean {
  for (const _ in map) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// ng: tiny-serializer 1.4.5 with compact sizes, fields in declaration order, no separators.

function encodeNg(series: HeroicSeries, base: number): Buffer {
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
function compactVarLong(value: number): Uint8Array {
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

function decodeNg(bytes: Uint8Array, withResource: boolean): DecodedKey {
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

function readCompactVarInt(c: Cursor, what: string): number {
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

// ---------------------------------------------------------------------------------------------------------------
// legacy: Heroic's own CompositeType-style composer, removed in 25fda501 (read at 25fda501^).

function encodeLegacy(series: HeroicSeries, base: number): Buffer {
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

function decodeLegacy(bytes: Uint8Array): DecodedKey {
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

// ---------------------------------------------------------------------------------------------------------------

/** Where a decoder is and how far it may read; every failure names the byte offset in the whole key. */
class Cursor {
  pos = 0;
  readonly end: number;
  constructor(readonly bytes: Uint8Array) {
    this.end = bytes.length;
  }

  fail(what: string, at: number): never {
    throw new KeyError(`${what} (byte ${at} of ${this.bytes.length})`);
  }

  utf8(length: number, what: string): string {
    const at = this.pos;
    let s: string;
    try {
      s = utf8Decoder.decode(this.bytes.subarray(at, at + length));
    } catch {
      return this.fail(`${what}: invalid UTF-8 in its ${count(length, 'byte')}`, at);
    }
    this.pos += length;
    return s;
  }
}

/** Both Heroic writers sort through a TreeMap, so a key out of order or repeated is not one Heroic wrote. */
function checkOrder(c: Cursor, what: string, previous: string | undefined, k: string, at: number): void {
  if (previous === undefined || previous < k) return;
  if (previous === k) c.fail(`${what}: duplicate name ${JSON.stringify(k)}`, at);
  c.fail(`${what}: name ${JSON.stringify(k)} is out of order after ${JSON.stringify(previous)}`, at);
}

function nullMap(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/** "1 byte", "2 bytes". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function hexByte(b: number): string {
  return b.toString(16).padStart(2, '0');
}
