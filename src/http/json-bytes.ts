/**
 * JSON written straight into bytes, for the answers made from points' columns: no string per point to be joined,
 * counted, encoded to UTF-8 and freed, which measured faster than joined strings for large answers (bench/RESULTS.md);
 * what is left is mostly V8 writing each double's shortest text, which only String does exactly.
 */

/**
 * Bytes the first buffer is allocated with: pieces are taken from it until it is full, and each next one is four times
 * larger, up to LARGEST_BUFFER_BYTES. A short list costs a small buffer; a long one hands the answer's compressor
 * pieces of up to 1 MiB with no copy (AnswerWriter joins consecutive pieces of one buffer).
 */
const FIRST_BUFFER_BYTES = 16 * 1024;
const LARGEST_BUFFER_BYTES = 1024 * 1024;

/** The longest text of a finite double (String(-1.2345678901234567e-308)) and of a time (ISO, six-digit year). */
const NUMBER_ROOM = 25;
const TIME_ROOM = 29;

export class JsonBytes {
  private buffer = Buffer.allocUnsafe(FIRST_BUFFER_BYTES);
  private pos = 0;
  /** Where the bytes not taken yet begin in `buffer`. */
  private start = 0;
  /** Bytes written into buffers that filled up, not taken yet. */
  private readonly full: Buffer[] = [];

  /** Everything written since the last call, in order (no copy: views of the buffers written). */
  take(): Buffer[] {
    const taken = this.full.splice(0);
    if (this.pos > this.start) taken.push(this.buffer.subarray(this.start, this.pos));
    this.start = this.pos;
    return taken;
  }

  /** One byte (an ASCII character's code). */
  byte(code: number): void {
    this.room(1);
    this.buffer[this.pos++] = code;
  }

  /** Bytes made once and written often: a key with its punctuation, a series' shared fields. */
  bytes(bytes: Uint8Array): void {
    this.room(bytes.length);
    const buffer = this.buffer;
    const pos = this.pos;
    // Most are a few bytes long, which a loop copies faster than a call to `set`.
    if (bytes.length > 64) buffer.set(bytes, pos);
    else for (let i = 0; i < bytes.length; i++) buffer[pos + i] = bytes[i]!;
    this.pos = pos + bytes.length;
  }

  /** JSON text of any characters, as UTF-8. */
  text(json: string): void {
    if (json.length <= 64 && isAscii(json)) return this.ascii(json, json.length);
    const bytes = Buffer.byteLength(json, 'utf8');
    this.room(bytes);
    this.pos += this.buffer.write(json, this.pos, bytes, 'utf8');
  }

  /** A number as JSON.stringify writes it; null for NaN and the infinities, which JSON cannot write. */
  number(value: number): void {
    if (Number.isFinite(value)) this.ascii(String(value), NUMBER_ROOM);
    else this.ascii('null', 4);
  }

  /** The next number of `run`, as `number` would write it. */
  nextOf(run: NumberRun): void {
    this.room(NUMBER_ROOM);
    const buffer = this.buffer;
    const text = run.bytes;
    let pos = this.pos;
    let at = run.at;
    for (let c = text[at]!; c !== COMMA && c !== CLOSE_BRACKET; c = text[++at]!) buffer[pos++] = c;
    run.at = at + 1;
    this.pos = pos;
  }

  /** Numbers [from, to) of `values` separated by commas, each as `number` writes it: one JSON.stringify for them all. */
  numbers(values: ArrayLike<number>, from: number, to: number): void {
    const text = jsonOfNumbers(values, from, to);
    this.room(text.length - 2);
    this.pos += this.buffer.write(text.slice(1, -1), this.pos, 'latin1');
  }

  /**
   * A time (epoch ms) as its JSON number. Times of this millennium (1e6 to 1e15) are written digit by digit from two
   * Smis, millions and the rest, with no string; any other number as `number` writes it.
   */
  epoch(t: number): void {
    if (!(t >= 1e6 && t < 1e15 && Number.isInteger(t))) return this.number(t);
    this.room(15);
    // Both below 2^30, so V8 keeps them as small integers: a double's `%` is a call to fmod.
    let millions = Math.floor(t / 1e6) | 0;
    let rest = (t - millions * 1e6) | 0;
    const buffer = this.buffer;
    let end = this.pos + digitsOf(millions) + 6;
    this.pos = end;
    for (let k = 0; k < 3; k++) {
      const next = (rest / 100) | 0;
      end -= 2;
      writePair(buffer, end, rest - next * 100);
      rest = next;
    }
    while (millions >= 100) {
      const next = (millions / 100) | 0;
      end -= 2;
      writePair(buffer, end, millions - next * 100);
      millions = next;
    }
    if (millions >= 10) writePair(buffer, end - 2, millions);
    else buffer[end - 1] = ZERO + millions;
  }

  /**
   * A time (epoch ms) as a JSON string of ISO-8601 UTC text, exactly as Date's toISOString writes it (a time outside
   * Date's range throws its RangeError). Consecutive times mostly share their day: the day's characters are kept,
   * and the time of day is computed, which costs a small part of what toISOString does for every time.
   */
  isoTime(ms: number): void {
    // What Date does with the rest (a fraction, a time past its range, a year of more than four digits) stays Date's.
    if (!Number.isInteger(ms) || Math.abs(ms) > MAX_DATE_MS)
      return this.ascii(`"${new Date(ms).toISOString()}"`, TIME_ROOM);
    const day = Math.floor(ms / DAY_MS);
    if (day !== lastDay) {
      const text = new Date(day * DAY_MS).toISOString();
      if (text.length !== 24) return this.ascii(`"${new Date(ms).toISOString()}"`, TIME_ROOM);
      lastDay = day;
      // '"' and "YYYY-MM-DDT", before the 13 characters of "HH:MM:SS.mmmZ".
      dayCodes = Buffer.from(`"${text.slice(0, 11)}`, 'latin1');
    }
    // Below 2^30, so V8 keeps it and what is computed from it as small integers.
    let rest = (ms - day * DAY_MS) | 0;
    const h = (rest / 3_600_000) | 0;
    rest -= h * 3_600_000;
    const m = (rest / 60_000) | 0;
    rest -= m * 60_000;
    const s = (rest / 1000) | 0;
    rest -= s * 1000;
    const hundreds = (rest / 100) | 0;
    this.room(26);
    const buffer = this.buffer;
    let pos = this.pos;
    const d = dayCodes;
    for (let i = 0; i < 12; i++) buffer[pos++] = d[i]!;
    writePair(buffer, pos, h);
    buffer[pos + 2] = COLON;
    writePair(buffer, pos + 3, m);
    buffer[pos + 5] = COLON;
    writePair(buffer, pos + 6, s);
    buffer[pos + 8] = DOT;
    buffer[pos + 9] = ZERO + hundreds;
    writePair(buffer, pos + 10, rest - hundreds * 100);
    buffer[pos + 12] = Z;
    buffer[pos + 13] = QUOTE;
    this.pos = pos + 14;
  }

  /** ASCII text of at most `room` characters. */
  private ascii(text: string, room: number): void {
    this.room(room);
    const buffer = this.buffer;
    const pos = this.pos;
    for (let i = 0; i < text.length; i++) buffer[pos + i] = text.charCodeAt(i);
    this.pos = pos + text.length;
  }

  /** Makes room for `bytes` more: a buffer that cannot take them is set aside (its bytes not taken yet kept) for a new one. */
  private room(bytes: number): void {
    if (this.pos + bytes <= this.buffer.length) return;
    if (this.pos > this.start) this.full.push(this.buffer.subarray(this.start, this.pos));
    this.buffer = Buffer.allocUnsafe(Math.max(Math.min(LARGEST_BUFFER_BYTES, 4 * this.buffer.length), bytes));
    this.pos = 0;
    this.start = 0;
  }
}

/**
 * Numbers written in order from the JSON text of a few thousand of them at a time: one JSON.stringify of an array
 * formats doubles faster than String does one by one, and makes one string where String makes one each. The text is
 * kept as bytes, which are copied out faster than its characters are read (both measured: bench/RESULTS.md).
 */
export class NumberRun {
  /**
   * The JSON text of numbers `next - 1`… as bytes, `[` included (and after its `]`, what longer texts left); `at` is
   * where the next number's text begins.
   */
  bytes: Buffer = Buffer.alloc(0);
  at = 0;
  /** The index of the number at `at`, and the end of the numbers `bytes` holds. */
  private next = 0;
  private end = 0;
  /**
   * Numbers the next text holds: FIRST_NUMBERS_PER_TEXT, eight times more each text after, up to NUMBERS_PER_TEXT. A
   * run is often a few dozen points of a slice of thousands (a merge of interleaved series hands such runs over), and
   * its text must not be the thousands after them.
   */
  private span = FIRST_NUMBERS_PER_TEXT;

  constructor(private readonly values: ArrayLike<number>) {}

  /** Number `i` of the values is to be written next (JsonBytes.nextOf): their text from it on, unless it holds it already. */
  seek(i: number): NumberRun {
    if (i !== this.next || i >= this.end) {
      this.end = Math.min(this.values.length, i + this.span);
      this.span = Math.min(NUMBERS_PER_TEXT, 8 * this.span);
      const text = jsonOfNumbers(this.values, i, this.end);
      // One buffer for the run's texts, each written over the one before: a Buffer for each added up over an answer.
      if (this.bytes.length < text.length)
        this.bytes = Buffer.allocUnsafe(Math.max(text.length, 2 * this.bytes.length));
      this.bytes.write(text, 0, 'latin1');
      this.at = 1;
    }
    this.next = i + 1;
    return this;
  }
}

const FIRST_NUMBERS_PER_TEXT = 64;
const NUMBERS_PER_TEXT = 2048;

/** The JSON array of numbers [from, to) of `values` (an array or a typed array). */
function jsonOfNumbers(values: ArrayLike<number>, from: number, to: number): string {
  return JSON.stringify(
    Array.isArray(values) ? values.slice(from, to) : Array.from((values as Float64Array).subarray(from, to)),
  );
}

/** JSON text as bytes, for `JsonBytes.bytes`. */
export function jsonBytes(json: string): Buffer {
  return Buffer.from(json, 'utf8');
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** The two digits of every number below 100, by twice the number: "00", "01", … "99". */
const PAIRS = Buffer.from(Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0')).join(''), 'latin1');

/** Writes the two digits of `pair` (below 100) at `at`. */
function writePair(buffer: Buffer, at: number, pair: number): void {
  buffer[at] = PAIRS[2 * pair]!;
  buffer[at + 1] = PAIRS[2 * pair + 1]!;
}

/** The number of decimal digits of a positive integer below 1e9. */
function digitsOf(n: number): number {
  let digits = 1;
  for (let bound = 10; n >= bound && digits < 9; bound *= 10) digits++;
  return digits;
}

const DAY_MS = 86_400_000;
const MAX_DATE_MS = 8.64e15;
const [ZERO, COLON, DOT, Z, QUOTE] = ['0', ':', '.', 'Z', '"'].map((c) => c.charCodeAt(0)) as [
  number,
  number,
  number,
  number,
  number,
];
/** The punctuation the renderers write a byte at a time (JsonBytes.byte), and `null`. */
export const [COMMA, OPEN_BRACKET, CLOSE_BRACKET, CLOSE_BRACE] = [',', '[', ']', '}'].map((c) => c.charCodeAt(0)) as [
  number,
  number,
  number,
  number,
];
export const NULL = jsonBytes('null');
/** The day isoTime wrote last (of a four-digit year), and its '"YYYY-MM-DDT' as bytes. */
let lastDay = Number.NaN;
let dayCodes: Uint8Array = new Uint8Array(0);
