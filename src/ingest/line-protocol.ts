/**
 * InfluxDB's line protocol, read line by line into points, each bad line an error of its own (its number, its text
 * and why) so the good ones can still be written, as InfluxDB writes them. The rules are InfluxDB 2's
 * (docs/ingest.md): `measurement[,tag=value...] field=value[,field=value...] [timestamp]`; `\` escapes a comma, a
 * space or a backslash in the measurement, those and an equals sign in tag keys, tag values and field keys, and a
 * double quote or a backslash in string fields (elsewhere it is itself); `#` starts a comment line; a string field may span lines.
 */

import { dict, dictOf } from '../lib/dict.js';
import { detached, Interned } from '../model/interned.js';

/** A field's value as the write model takes it; booleans are 1 and 0 of type long (KairosDB has no boolean). */
type FieldValue =
  | { readonly type: 'double'; readonly value: number }
  | { readonly type: 'long'; readonly value: number | bigint; readonly boolean?: true }
  | { readonly type: 'string'; readonly value: string };

/** A line's measurement and tags; while interned, the same frozen object for every line that sends the same text. */
interface LineSeries {
  readonly measurement: string;
  /** Tag names to values, in the line's order; no name is repeated. */
  readonly tags: Readonly<Record<string, string>>;
}

export interface LinePoint extends LineSeries {
  /** 1-based. */
  readonly line: number;
  /** The measurement and tags as sent (escapes included): lines that send the same text are of the same series. */
  readonly series: string;
  /** In the line's order; a key given twice keeps its last value, as InfluxDB keeps it. */
  readonly fields: readonly (readonly [string, FieldValue])[];
  /** Epoch milliseconds; undefined when the line has no timestamp (the caller's `now`). */
  readonly timestampMs: number | undefined;
}

export interface LineError {
  readonly line: number;
  /** The line as sent, cut to 64 characters. */
  readonly text: string;
  readonly reason: string;
}

/** What a timestamp counts, as the `precision` parameter names it (1.x: n u ms s m h; 2.x: ns us ms s). */
export type Precision = 'ns' | 'us' | 'ms' | 's' | 'm' | 'h';

export interface ParsedLines {
  readonly points: LinePoint[];
  readonly errors: LineError[];
}

/**
 * A sender's series by the text of their measurement and tag set: each request sends them again, and a line whose
 * text was read before takes what it gave, its tags not read again.
 */
const SERIES = new Interned<LineSeries>(({ measurement, tags }) =>
  Object.freeze({
    measurement: detached(measurement),
    tags: Object.freeze(
      dictOf(Object.entries(tags).map(([name, value]) => [detached(name), detached(value)] as const)),
    ),
  }),
);

export function parseLineProtocol(text: string, precision: Precision): ParsedLines {
  const points: LinePoint[] = [];
  const errors: LineError[] = [];
  const parser = new LineParser(text, precision);
  while (parser.pos < text.length) {
    const start = parser.pos;
    const line = parser.line;
    try {
      const point = parser.next();
      if (point !== undefined) points.push(point);
    } catch (error) {
      if (!(error instanceof LineSyntaxError)) throw error;
      parser.skipLine();
      const sent = text.slice(start, parser.pos).replace(/\r?\n$/, '');
      errors.push({ line, text: sent.length > 64 ? `${sent.slice(0, 64)}…` : sent, reason: error.message });
    }
  }
  return { points, errors };
}

class LineSyntaxError extends Error {}

const FEW_FIELDS = 16;

/** A key given twice keeps its last value, in the place of its last: as InfluxDB keeps it. */
function lastOfEachKey(fields: readonly [string, FieldValue][]): [string, FieldValue][] {
  const seen = new Set<string>();
  const kept: [string, FieldValue][] = [];
  for (let i = fields.length - 1; i >= 0; i--) {
    if (seen.has(fields[i]![0])) continue;
    seen.add(fields[i]![0]);
    kept.push(fields[i]!);
  }
  return kept.reverse();
}

/** A series read to another end than `seriesEnd` found for it (a text of a form neither foresees). */
class SeriesEndMismatch extends Error {}

/**
 * Where the measurement and tags starting at `start` end: at the first space or line end no backslash escapes. A
 * backslash before a space, a comma, an equals sign or a backslash escapes it wherever it stands, so this is where
 * reading them ends too (LineParser.series), without reading them.
 */
function seriesEnd(text: string, start: number): number {
  let pos = start;
  const length = text.length;
  while (pos < length) {
    const code = text.charCodeAt(pos);
    if (code === BACKSLASH) {
      const next = text.charCodeAt(pos + 1);
      if (next < 128 && NAME_ESCAPES[next] === 1) {
        pos += 2;
        continue;
      }
    } else if (code === 0x20 || code === 0x0a || code === 0x0d) break;
    pos++;
  }
  return Math.min(pos, length);
}

const MS_PER: Readonly<Record<Exclude<Precision, 'ns' | 'us'>, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const FLOAT = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^-?\d+i$/;
const UNSIGNED = /^\d+u$/;
const TIMESTAMP = /^-?\d+$/;
const TRUE = new Set(['t', 'T', 'true', 'True', 'TRUE']);
const FALSE = new Set(['f', 'F', 'false', 'False', 'FALSE']);
const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);
const MAX_UINT64 = 2n ** 64n - 1n;

class LineParser {
  pos = 0;
  line = 1;

  constructor(
    private readonly text: string,
    private readonly precision: Precision,
  ) {}

  /** The next point, or undefined for a blank or comment line; the position is then at the next line. */
  next(): LinePoint | undefined {
    const line = this.line;
    this.skipSpaces();
    const start = this.pos;
    const c = this.text[this.pos];
    if (c === undefined) return undefined;
    if (c === '\n' || c === '#') {
      this.skipLine();
      return undefined;
    }
    const end = seriesEnd(this.text, start);
    let series = this.text.slice(start, end);
    let known: LineSeries;
    try {
      known = SERIES.of(series, () => {
        const read = this.series(start);
        // Kept only as what this text reads as: a series read to another end than the one found is not.
        if (this.pos !== end) throw new SeriesEndMismatch();
        return read;
      });
      this.pos = end;
    } catch (error) {
      if (!(error instanceof SeriesEndMismatch)) throw error;
      this.pos = start;
      known = this.series(start);
      series = this.text.slice(start, this.pos);
    }
    const { measurement, tags } = known;
    if (!this.spaces()) throw new LineSyntaxError('missing fields');
    const fields: [string, FieldValue][] = [];
    // Whether a field key repeats: looked for among a few fields, through a set among many (never their square).
    let keys: Set<string> | undefined;
    let repeated = false;
    for (;;) {
      const key = this.name(FIELD_KEY_END);
      if (key === '') throw new LineSyntaxError('missing field key');
      if (this.text[this.pos] !== '=') throw new LineSyntaxError(`missing field value of field key "${key}"`);
      this.pos++;
      if (!repeated) {
        if (keys === undefined && fields.length >= FEW_FIELDS) keys = new Set(fields.map(([k]) => k));
        repeated = keys !== undefined ? keys.has(key) : fields.some(([k]) => k === key);
        keys?.add(key);
      }
      fields.push([key, this.fieldValue(key)]);
      if (this.text[this.pos] !== ',') break;
      this.pos++;
    }
    let timestampMs: number | undefined;
    if (this.spaces() && !this.atLineEnd()) {
      const start = this.pos;
      while (!this.atLineEnd() && this.text[this.pos] !== ' ') this.pos++;
      timestampMs = this.timestamp(this.text.slice(start, this.pos));
      this.spaces();
    }
    if (!this.atLineEnd()) throw new LineSyntaxError(`unexpected text at column ${this.column()}`);
    this.skipLine();
    return { line, measurement, series, tags, fields: repeated ? lastOfEachKey(fields) : fields, timestampMs };
  }

  /** The measurement and tags from `start`, which must be the position; the position is then after them. */
  private series(start: number): LineSeries {
    const measurement = this.name(MEASUREMENT_END, MEASUREMENT_ESCAPES);
    if (measurement === '') throw new LineSyntaxError('missing measurement');
    const tags = dict<string>();
    while (this.text[this.pos] === ',') {
      // No store's row key holds more: a line of many tags is refused before they are all read and sorted.
      if (this.pos - start > MAX_SERIES_CHARS)
        throw new LineSyntaxError(`the measurement and tags are longer than ${MAX_SERIES_CHARS} characters`);
      this.pos++;
      const key = this.name(TAG_KEY_END);
      if (key === '') throw new LineSyntaxError('missing tag key');
      if (this.text[this.pos] !== '=') throw new LineSyntaxError(`missing tag value of tag key "${key}"`);
      this.pos++;
      const value = this.name(TAG_VALUE_END);
      if (value === '') throw new LineSyntaxError(`missing tag value of tag key "${key}"`);
      if (Object.hasOwn(tags, key)) throw new LineSyntaxError(`tag key "${key}" is repeated`);
      tags[key] = value;
    }
    return { measurement, tags };
  }

  /** Moves past the end of the current line. */
  skipLine(): void {
    const end = this.text.indexOf('\n', this.pos);
    this.pos = end < 0 ? this.text.length : end + 1;
    this.line++;
  }

  /** A measurement, tag key, tag value or field key up to one of `ends` (unescaped), unescaped. */
  private name(ends: Uint8Array, escapes = NAME_ESCAPES): string {
    const { text } = this;
    let out = '';
    let from = this.pos;
    let pos = this.pos;
    const length = text.length;
    while (pos < length) {
      const code = text.charCodeAt(pos);
      if (code === BACKSLASH) {
        const next = text.charCodeAt(pos + 1);
        if (next < 128 && escapes[next] === 1) {
          out += text.slice(from, pos) + text[pos + 1];
          pos += 2;
          from = pos;
          continue;
        }
      } else if (code < 128 && ends[code] === 1) break;
      pos++;
    }
    this.pos = pos;
    return out + text.slice(from, pos);
  }

  private fieldValue(key: string): FieldValue {
    const { text } = this;
    if (text[this.pos] === '"') return { type: 'string', value: this.stringField(key) };
    const start = this.pos;
    let pos = this.pos;
    while (pos < text.length) {
      const code = text.charCodeAt(pos);
      if (code < 128 && FIELD_VALUE_END[code] === 1) break;
      pos++;
    }
    this.pos = pos;
    const raw = text.slice(start, this.pos);
    if (raw === '') throw new LineSyntaxError(`missing field value of field key "${key}"`);
    const last = raw[raw.length - 1];
    if (last === 'i' && INTEGER.test(raw)) {
      const value = BigInt(raw.slice(0, -1));
      if (value < MIN_INT64 || value > MAX_INT64)
        throw new LineSyntaxError(`field "${key}": integer ${raw} is out of the range of a signed 64-bit integer`);
      return { type: 'long', value: safe(value) };
    }
    if (last === 'u' && UNSIGNED.test(raw)) {
      const value = BigInt(raw.slice(0, -1));
      if (value > MAX_UINT64)
        throw new LineSyntaxError(`field "${key}": unsigned ${raw} is out of the range of an unsigned 64-bit integer`);
      // KairosDB's longs are signed.
      if (value > MAX_INT64)
        throw new LineSyntaxError(`field "${key}": unsigned ${raw} is over 2^63-1, the largest long KairosDB stores`);
      return { type: 'long', value: safe(value) };
    }
    if (TRUE.has(raw)) return { type: 'long', value: 1, boolean: true };
    if (FALSE.has(raw)) return { type: 'long', value: 0, boolean: true };
    if (FLOAT.test(raw)) {
      const value = Number(raw);
      if (!Number.isFinite(value)) throw new LineSyntaxError(`field "${key}": float ${raw} is out of range`);
      return { type: 'double', value };
    }
    throw new LineSyntaxError(`field "${key}": invalid value ${JSON.stringify(raw)}`);
  }

  /** A double-quoted string field; `\"` and `\\` are escapes, a newline is part of the string. */
  private stringField(key: string): string {
    const { text } = this;
    this.pos++;
    let out = '';
    let from = this.pos;
    while (this.pos < text.length) {
      const c = text[this.pos]!;
      if (c === '"') {
        out += text.slice(from, this.pos);
        this.pos++;
        return out;
      }
      if (c === '\\' && (text[this.pos + 1] === '"' || text[this.pos + 1] === '\\')) {
        out += text.slice(from, this.pos) + text[this.pos + 1];
        this.pos += 2;
        from = this.pos;
        continue;
      }
      if (c === '\n') this.line++;
      this.pos++;
    }
    throw new LineSyntaxError(`field "${key}": unterminated string`);
  }

  private timestamp(raw: string): number {
    if (!TIMESTAMP.test(raw)) throw new LineSyntaxError(`invalid timestamp ${JSON.stringify(raw)}`);
    const { precision } = this;
    if (precision === 'ns' || precision === 'us') {
      const digits = precision === 'ns' ? 6 : 3;
      // A time after the epoch in whole milliseconds is its leading digits; BigInt only for the others.
      if (raw.charCodeAt(0) !== 0x2d && raw.length > digits && raw.length <= 16 + digits)
        return Number(raw.slice(0, raw.length - digits));
      const value = BigInt(raw);
      const per = precision === 'ns' ? 1_000_000n : 1_000n;
      // Floor, not truncation: -1 ns is in the millisecond before the epoch.
      const ms = value >= 0n ? value / per : -((-value + per - 1n) / per);
      return Number(ms);
    }
    return Number(raw) * MS_PER[precision];
  }

  /** Skips one or more spaces; false when there were none. */
  private spaces(): boolean {
    const start = this.pos;
    this.skipSpaces();
    return this.pos > start;
  }

  private skipSpaces(): void {
    while (this.text[this.pos] === ' ' || this.text[this.pos] === '\t') this.pos++;
  }

  private atLineEnd(): boolean {
    const c = this.text[this.pos];
    return c === undefined || c === '\n' || (c === '\r' && this.text[this.pos + 1] === '\n');
  }

  private column(): number {
    return this.pos - this.text.lastIndexOf('\n', this.pos - 1);
  }
}

/** Lookup tables of ASCII characters, so the scan of a name costs a load per character. */
function chars(list: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < list.length; i++) table[list.charCodeAt(i)] = 1;
  return table;
}

const BACKSLASH = 0x5c;
const NAME_ESCAPES = chars(', =\\');
/** A measurement has no `=` to escape: `\=` in one is two characters, as InfluxDB reads it. */
const MEASUREMENT_ESCAPES = chars(', \\');
/** Cassandra's largest partition key, which holds KairosDB's row key (the metric, the type and the tags). */
const MAX_SERIES_CHARS = 65_535;
// Every name also ends at the end of its line.
const MEASUREMENT_END = chars(', \n\r');
const TAG_KEY_END = chars(',= \n\r');
const TAG_VALUE_END = chars(', \n\r');
const FIELD_KEY_END = chars(',= \n\r');
const FIELD_VALUE_END = chars(', \n\r');

function safe(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}
