/**
 * What Heroic's two key forms (ng-key.ts, legacy-key.ts) share: the series a key holds and what decoding one gives,
 * the map order and UTF-8 of Heroic's Java writers, and the cursor whose failures name the byte. Below both forms and
 * row-key.ts, which picks between them, so that no form imports the module that calls it.
 */

/**
 * Heroic's Series: key (the metric name), tags and resource. Decoded maps are null-prototype objects, so a tag named
 * `__proto__` is an ordinary entry; encoders write keys in JS default sort order, which is Java's String.compareTo.
 */
export interface HeroicSeries {
  readonly key: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly resource: Readonly<Record<string, string>>;
}

/** How a decoded key was written: 'ng' (current, with the resource map), 'ng-pre-resource' (ng written before Heroic commit 5a6382e1: no resource map), 'legacy', 'bigtable' (a Bigtable row key). */
type KeyForm = 'ng' | 'ng-pre-resource' | 'legacy' | 'bigtable';

export interface DecodedKey {
  readonly series: HeroicSeries;
  readonly base: number;
  readonly form: KeyForm;
}

export const utf8Encoder = new TextEncoder();
/** Java's UTF-8 decoder keeps a leading BOM; `newDecoder()` reports malformed input, as `fatal` does. */
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * Thrown inside the decoders only; `attempt` (row-key.ts) turns it into `{ error }`, so other exceptions still surface
 * as bugs.
 */
export class KeyError extends Error {}

export function sortedEntries(map: Readonly<Record<string, string>>): Array<[string, string]> {
  return Object.keys(map)
    .sort()
    .map((k) => [k, map[k]!]);
}

export function isEmptyMap(map: Readonly<Record<string, string>>): boolean {
  for (const _ in map) return false;
  return true;
}

/** Where a decoder is and how far it may read; every failure names the byte offset in the whole key. */
export class Cursor {
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
export function checkOrder(c: Cursor, what: string, previous: string | undefined, k: string, at: number): void {
  if (previous === undefined || previous < k) return;
  if (previous === k) c.fail(`${what}: duplicate name ${JSON.stringify(k)}`, at);
  c.fail(`${what}: name ${JSON.stringify(k)} is out of order after ${JSON.stringify(previous)}`, at);
}

export function nullMap(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/** "1 byte", "2 bytes". */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export function hexByte(b: number): string {
  return b.toString(16).padStart(2, '0');
}
