/**
 * InfluxDB's line protocol, read line by line into points, each bad line an error of its own (its number, its text
 * and why) so the good ones can still be written, as InfluxDB writes them. The rules are InfluxDB 2's
 * (docs/ingest.md): `measurement[,tag=value...] field=value[,field=value...] [timestamp]`; `\` escapes a comma, a
 * space or a backslash in the measurement, those and an equals sign in tag keys, tag values and field keys, and a
 * double quote or a backslash in string fields (elsewhere it is itself); `#` starts a comment line; a string field may span lines.
 */

/** A field's value as the write model takes it; booleans are 1 and 0 of type long (KairosDB has no boolean). */
type FieldValue =
  | { readonly type: 'double'; readonly value: number }
  | { readonly type: 'long'; readonly value: number | bigint; readonly boolean?: true }
  | { readonly type: 'string'; readonly value: string };

export interface LinePoint {
  /** 1-based. */
  readonly line: number;
  readonly measurement: string;
  /** The measurement and tags as sent (escapes included): lines that send the same text are of the same series. */
  readonly series: string;
  /** In the line's order; keys are not repeated. */
  readonly tags: readonly (readonly [string, string])[];
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
    const measurement = this.name(MEASUREMENT_END, MEASUREMENT_ESCAPES);
    if (measurement === '') throw new LineSyntaxError('missing measurement');
    const tags: [string, string][] = [];
    // A Set, not a scan of `tags`: a line of many tags must not cost their square.
    const keys = new Set<string>();
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
      if (keys.has(key)) throw new LineSyntaxError(`tag key "${key}" is repeated`);
      keys.add(key);
      tags.push([key, value]);
    }
    const series = this.text.slice(start, this.pos);
    if (!this.spaces()) throw new LineSyntaxError('missing fields');
    const fields = new Map<string, FieldValue>();
    for (;;) {
      const key = this.name(FIELD_KEY_END);
      if (key === '') throw new LineSyntaxError('missing field key');
      if (this.text[this.pos] !== '=') throw new LineSyntaxError(`missing field value of field key "${key}"`);
      this.pos++;
      fields.delete(key);
      fields.set(key, this.fieldValue(key));
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
    return { line, measurement, series, tags, fields: [...fields], timestampMs };
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
