/**
 * PromQL's tokens: numbers (decimal, hexadecimal, Inf/NaN come as identifiers), durations, the three string
 * quotings with Go's escapes, identifiers (metric names may hold `:`), operators and punctuation.
 */
import { parseDuration } from './duration.js';
import { PromqlError } from './promql-error.js';

type TokenKind = 'number' | 'duration' | 'string' | 'ident' | 'op' | 'punct' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** The source text, or for strings the decoded value. */
  readonly text: string;
  /** For numbers the value; for durations milliseconds. */
  readonly value: number;
  readonly start: number;
  readonly end: number;
}

const OPERATORS = ['==', '!=', '>=', '<=', '=~', '!~', '+', '-', '*', '/', '%', '^', '>', '<', '='];
const PUNCT = '(){}[],@:';
const DURATION = /^(?:[0-9]+(?:ms|s|m|h|d|w|y))+/;
const HEX = /^0[xX][0-9a-fA-F]+/;
const DECIMAL = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/;

export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let bracketDepth = 0;
  let parenDepth = 0;
  let inBraces = false;
  while (i < input.length) {
    const c = input[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < input.length && input[i] !== '\n') i++;
      continue;
    }
    const rest = input.slice(i);
    if (/[0-9.]/.test(c) && /^\.?[0-9]/.test(rest)) {
      const token = lexNumber(rest, i);
      tokens.push(token);
      i = token.end;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      const [value, end] = lexString(input, i);
      tokens.push({ kind: 'string', text: value, value: 0, start: i, end });
      i = end;
      continue;
    }
    const ident = (bracketDepth > 0 ? /^[a-zA-Z_][a-zA-Z0-9_]*/ : /^[a-zA-Z_:][a-zA-Z0-9_:]*/).exec(rest);
    if (ident !== null) {
      tokens.push({ kind: 'ident', text: ident[0], value: 0, start: i, end: i + ident[0].length });
      i += ident[0].length;
      continue;
    }
    const op = OPERATORS.find((o) => rest.startsWith(o));
    if (op !== undefined) {
      tokens.push({ kind: 'op', text: op, value: 0, start: i, end: i + op.length });
      i += op.length;
      continue;
    }
    if (PUNCT.includes(c)) {
      // Unbalanced brackets are the lexer's errors in Prometheus, with its messages.
      if (c === '[') bracketDepth++;
      if (c === ']' && bracketDepth-- === 0) throw new PromqlError('bad_data', "unexpected right bracket ']'", i);
      if (c === '(') parenDepth++;
      if (c === ')' && parenDepth-- === 0) throw new PromqlError('bad_data', "unexpected right parenthesis ')'", i);
      if (c === '{') inBraces = true;
      if (c === '}' && !inBraces) throw new PromqlError('bad_data', "unexpected right brace '}'", i);
      if (c === '}') inBraces = false;
      tokens.push({ kind: 'punct', text: c, value: 0, start: i, end: i + 1 });
      i++;
      continue;
    }
    if (c === '!') throw new PromqlError('bad_data', `unexpected character after '!': '${input[i + 1] ?? ''}'`, i);
    throw new PromqlError('bad_data', `unexpected character: '${c}'`, i);
  }
  if (inBraces) throw new PromqlError('bad_data', 'unexpected end of input inside braces', input.length);
  if (parenDepth > 0) throw new PromqlError('bad_data', 'unclosed left parenthesis', input.length);
  if (bracketDepth > 0) throw new PromqlError('bad_data', 'unclosed left bracket', input.length);
  tokens.push({ kind: 'eof', text: '', value: 0, start: input.length, end: input.length });
  return tokens;
}

function lexNumber(rest: string, at: number): Token {
  const duration = DURATION.exec(rest);
  if (duration !== null && !/^[a-zA-Z0-9_.]/.test(rest.slice(duration[0].length))) {
    const text = duration[0];
    return { kind: 'duration', text, value: parseDuration(text, at), start: at, end: at + text.length };
  }
  const number = HEX.exec(rest) ?? DECIMAL.exec(rest);
  const text = number?.[0] ?? '';
  if (text === '' || /^[a-zA-Z0-9_.]/.test(rest.slice(text.length))) {
    const bad = /^[a-zA-Z0-9_.]+/.exec(rest)?.[0] ?? rest[0];
    throw new PromqlError('bad_data', `bad number or duration syntax: "${bad}"`, at);
  }
  const value = text.startsWith('0x') || text.startsWith('0X') ? Number.parseInt(text, 16) : Number(text);
  return { kind: 'number', text, value, start: at, end: at + text.length };
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
};

/** Decodes a quoted string as Go's strconv.Unquote does; backquoted strings take no escapes. */
export function lexString(input: string, start: number): [string, number] {
  const quote = input[start]!;
  let i = start + 1;
  // Go strings are bytes: `\xff` is one byte, which may not be valid UTF-8. Bytes are gathered and decoded at the end.
  const bytes: number[] = [];
  const text = (t: string): void => {
    bytes.push(...Buffer.from(t, 'utf8'));
  };
  while (i < input.length) {
    const c = input[i]!;
    if (c === quote) return [decodeBytes(bytes), i + 1];
    if (c === '\n' && quote !== '`') break;
    if (c !== '\\' || quote === '`') {
      const cp = input.codePointAt(i)!;
      text(String.fromCodePoint(cp));
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const e = input[i + 1];
    if (e === undefined) break;
    if (SIMPLE_ESCAPES[e] !== undefined) {
      text(SIMPLE_ESCAPES[e]);
      i += 2;
    } else if (e === quote) {
      text(e);
      i += 2;
    } else if (e === 'x' || e === 'u' || e === 'U' || /[0-7]/.test(e)) {
      const [len, radix] = e === 'x' ? [2, 16] : e === 'u' ? [4, 16] : e === 'U' ? [8, 16] : [3, 8];
      const skip = radix === 8 ? 1 : 2;
      const digits = input.slice(i + skip, i + skip + len);
      if (digits.length !== len || !(radix === 8 ? /^[0-7]+$/ : /^[0-9a-fA-F]+$/).test(digits))
        throw new PromqlError('bad_data', 'invalid escape sequence in string', i);
      const code = Number.parseInt(digits, radix);
      if (e === 'u' || e === 'U') text(String.fromCodePoint(code));
      else bytes.push(code);
      i += skip + len;
    } else {
      throw new PromqlError('bad_data', 'unknown escape sequence', i);
    }
  }
  throw new PromqlError('bad_data', 'unterminated quoted string', start);
}

/**
 * UTF-8 bytes as text; a byte that is not part of valid UTF-8 becomes a lone surrogate U+DC80..U+DCFF (Python's
 * "surrogateescape"), so that label name checks can find it and messages can print it back as `\xNN`.
 */
function decodeBytes(bytes: readonly number[]): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    let out = '';
    for (let i = 0; i < bytes.length; ) {
      const b = bytes[i]!;
      const len = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
      const chunk = len === 0 ? undefined : bytes.slice(i, i + len);
      let decoded: string | undefined;
      if (chunk !== undefined && chunk.length === len) {
        try {
          decoded = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(chunk));
        } catch {
          decoded = undefined;
        }
      }
      if (decoded === undefined) {
        out += String.fromCharCode(0xdc00 + b);
        i++;
      } else {
        out += decoded;
        i += len;
      }
    }
    return out;
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Prometheus 3 accepts any valid UTF-8 label name but the empty one; bytes that were not UTF-8 make it invalid. */
export function isValidLabelName(name: string): boolean {
  return name !== '' && !LONE_SURROGATE.test(name);
}

/** Go's %q of a string: bytes that were not UTF-8 print as `\xNN`. */
export function goQuote(text: string): string {
  return JSON.stringify(text).replace(
    /\\ud([c-f][0-9a-f]{2})/gi,
    (_, low: string) => `\\x${(Number.parseInt(`d${low}`, 16) - 0xdc00).toString(16)}`,
  );
}
