/**
 * A strict JSON parser (RFC 8259) for REST request bodies that keeps what JSON.parse loses: the text of numbers.
 * KairosDB's ingest infers a point's type from that text ("5" is a long, "5.0" a double), and 64-bit longs must
 * arrive whole. Syntax errors name the line and column. Objects have no prototype: their keys are the client's.
 */
import { dict } from '../lib/dict.js';

/** A number whose text matters: it has a fraction or an exponent, or it is an integer beyond ±(2^53 − 1). */
export class JsonNumber {
  constructor(readonly text: string) {}

  /** Error messages show the number, not the wrapper. */
  toJSON(): number {
    return Number(this.text);
  }
}

export type JsonValue = null | boolean | number | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

export class JsonSyntaxError extends Error {}

export interface ParseOptions {
  /**
   * true: integers that are safe JS numbers become numbers and every other number a JsonNumber.
   * false: every number becomes a JS number, as with JSON.parse.
   */
  readonly exactNumbers: boolean;
}

/** Nesting beyond this is refused rather than risking the stack; no KairosDB body comes near it. */
export const MAX_DEPTH = 512;

export function parseJson(text: string, options: ParseOptions): JsonValue {
  const parser = new Parser(text, options.exactNumbers);
  parser.skipSpace();
  if (parser.pos >= text.length) throw new JsonSyntaxError('the body is empty');
  const value = parser.value(0);
  parser.skipSpace();
  if (parser.pos < text.length) parser.fail('unexpected text after the JSON value');
  return value;
}

class Parser {
  pos = 0;

  constructor(
    private readonly text: string,
    private readonly exactNumbers: boolean,
  ) {}

  skipSpace(): void {
    const text = this.text;
    let pos = this.pos;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else break;
    }
    this.pos = pos;
  }

  value(depth: number): JsonValue {
    const c = this.text.charCodeAt(this.pos);
    switch (c) {
      case 0x7b /* { */:
        return this.object(depth + 1);
      case 0x5b /* [ */:
        return this.array(depth + 1);
      case 0x22 /* " */:
        return this.string();
      case 0x74 /* t */:
        return this.literal('true', true);
      case 0x66 /* f */:
        return this.literal('false', false);
      case 0x6e /* n */:
        return this.literal('null', null);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
        return this.fail(
          Number.isNaN(c)
            ? 'unexpected end of input, expected a value'
            : `unexpected ${this.shown()}, expected a value`,
        );
    }
  }

  private object(depth: number): { [key: string]: JsonValue } {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
    const object = dict<JsonValue>();
    this.pos++;
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) === 0x7d) {
      this.pos++;
      return object;
    }
    for (;;) {
      if (this.text.charCodeAt(this.pos) !== 0x22) this.fail(this.expected('a property name in double quotes'));
      const key = this.string();
      this.skipSpace();
      if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail(this.expected("':'"));
      this.pos++;
      this.skipSpace();
      const value = this.value(depth);
      object[key] = value;
      this.skipSpace();
      const c = this.text.charCodeAt(this.pos);
      this.pos++;
      if (c === 0x7d) return object;
      if (c !== 0x2c) {
        this.pos--;
        this.fail(this.expected("',' or '}'"));
      }
      this.skipSpace();
    }
  }

  private array(depth: number): JsonValue[] {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
    this.pos++;
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) === 0x5d) {
      this.pos++;
      return [];
    }
    // Most arrays of an ingest body are [timestamp, value] pairs: made at their size, they take a quarter of the
    // memory of an array grown from empty, which reserves 17 slots on its first push.
    const first = this.value(depth);
    if (this.endOfArray()) return [first];
    const second = this.value(depth);
    if (this.endOfArray()) return [first, second];
    const array = [first, second];
    do array.push(this.value(depth));
    while (!this.endOfArray());
    return array;
  }

  /** After an element: true past the closing ']', false past a ',' (and the space after it). */
  private endOfArray(): boolean {
    this.skipSpace();
    const c = this.text.charCodeAt(this.pos);
    this.pos++;
    if (c === 0x5d) return true;
    if (c !== 0x2c) {
      this.pos--;
      this.fail(this.expected("',' or ']'"));
    }
    this.skipSpace();
    return false;
  }

  private string(): string {
    const text = this.text;
    const start = ++this.pos;
    let pos = start;
    // Fast path: no escapes.
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        this.pos = pos + 1;
        return text.slice(start, pos);
      }
      if (c === 0x5c || c < 0x20 || Number.isNaN(c)) break;
      pos++;
    }
    let out = text.slice(start, pos);
    for (;;) {
      const c = text.charCodeAt(pos);
      if (Number.isNaN(c)) {
        this.pos = pos;
        this.fail('unterminated string');
      }
      if (c === 0x22) {
        this.pos = pos + 1;
        return out;
      }
      if (c < 0x20) {
        this.pos = pos;
        this.fail('unescaped control character in a string');
      }
      if (c !== 0x5c) {
        out += text[pos];
        pos++;
        continue;
      }
      const e = text[pos + 1];
      const simple = e === undefined ? undefined : ESCAPES[e];
      if (simple !== undefined) {
        out += simple;
        pos += 2;
      } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
        out += String.fromCharCode(parseInt(text.slice(pos + 2, pos + 6), 16));
        pos += 6;
      } else {
        this.pos = pos;
        this.fail('invalid escape in a string');
      }
    }
  }

  private number(): JsonValue {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    const negative = text.charCodeAt(pos) === 0x2d;
    if (negative) pos++;
    const intStart = pos;
    // Timestamps and longs are most numbers in an ingest body: their value is summed here, not sliced and parsed.
    let integer = 0;
    for (let c = text.charCodeAt(pos); isDigit(c); c = text.charCodeAt(++pos)) integer = integer * 10 + (c - 0x30);
    const intDigits = pos - intStart;
    if (intDigits === 0 || (intDigits > 1 && text.charCodeAt(intStart) === 0x30)) {
      this.pos = start;
      this.fail('invalid number');
    }
    let plainInteger = true;
    if (text.charCodeAt(pos) === 0x2e) {
      plainInteger = false;
      pos++;
      const from = pos;
      while (isDigit(text.charCodeAt(pos))) pos++;
      if (pos === from) {
        this.pos = start;
        this.fail('invalid number');
      }
    }
    const e = text.charCodeAt(pos);
    if (e === 0x65 || e === 0x45) {
      plainInteger = false;
      pos++;
      const sign = text.charCodeAt(pos);
      if (sign === 0x2b || sign === 0x2d) pos++;
      const from = pos;
      while (isDigit(text.charCodeAt(pos))) pos++;
      if (pos === from) {
        this.pos = start;
        this.fail('invalid number');
      }
    }
    this.pos = pos;
    // Up to 15 digits the sum is exact; -0 stays -0, as JSON.parse gives it.
    if (plainInteger && intDigits <= 15) return negative ? -integer : integer;
    const literal = text.slice(start, pos);
    const number = Number(literal);
    if (!this.exactNumbers || (plainInteger && Number.isSafeInteger(number))) return number;
    return new JsonNumber(literal);
  }

  private literal<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail(`invalid literal, expected ${word}`);
    this.pos += word.length;
    return value;
  }

  private expected(what: string): string {
    return this.pos >= this.text.length
      ? `unexpected end of input, expected ${what}`
      : `unexpected ${this.shown()}, expected ${what}`;
  }

  private shown(): string {
    return JSON.stringify(this.text[this.pos] ?? '');
  }

  fail(reason: string): never {
    let line = 1;
    let lineStart = 0;
    const end = Math.min(this.pos, this.text.length);
    for (let i = 0; i < end; i++) {
      if (this.text.charCodeAt(i) === 0x0a) {
        line++;
        lineStart = i + 1;
      }
    }
    throw new JsonSyntaxError(`${reason} at line ${line}, column ${end - lineStart + 1}`);
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
