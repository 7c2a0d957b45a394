/**
 * PromQL's tokens: numbers (decimal, hexadecimal, Inf/NaN come as identifiers), durations, the three string
 * quotings with Go's escapes, identifiers (metric names may hold `:`), operators and punctuation.
 */
import { parseDuration } from './duration.js';
import { PromqlError } from './promql-error.js';

export type TokenKind = 'number' | 'duration' | 'string' | 'ident' | 'op' | 'punct' | 'eof';

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
      if (c === '[') bracketDepth++;
      if (c === ']') bracketDepth = Math.max(0, bracketDepth - 1);
      tokens.push({ kind: 'punct', text: c, value: 0, start: i, end: i + 1 });
      i++;
      continue;
    }
    if (c === '!') throw new PromqlError('bad_data', `unexpected character after '!': '${input[i + 1] ?? ''}'`, i);
    throw new PromqlError('bad_data', `unexpected character: '${c}'`, i);
  }
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
  let out = '';
  while (i < input.length) {
    const c = input[i]!;
    if (c === quote) return [out, i + 1];
    if (c === '\n' && quote !== '`') break;
    if (c !== '\\' || quote === '`') {
      out += c;
      i++;
      continue;
    }
    const e = input[i + 1];
    if (e === undefined) break;
    if (SIMPLE_ESCAPES[e] !== undefined) {
      out += SIMPLE_ESCAPES[e];
      i += 2;
    } else if (e === quote) {
      out += e;
      i += 2;
    } else if (e === 'x' || e === 'u' || e === 'U' || /[0-7]/.test(e)) {
      const [len, radix] = e === 'x' ? [2, 16] : e === 'u' ? [4, 16] : e === 'U' ? [8, 16] : [3, 8];
      const digits = input.slice(i + (radix === 8 ? 1 : 2), i + (radix === 8 ? 1 : 2) + len);
      if (digits.length !== len || !(radix === 8 ? /^[0-7]+$/ : /^[0-9a-fA-F]+$/).test(digits))
        throw new PromqlError('bad_data', 'invalid escape sequence in string', i);
      const code = Number.parseInt(digits, radix);
      // \x and octal escapes are bytes in Go; decoded as UTF-8 they are only text when they spell ASCII.
      out += String.fromCodePoint(code);
      i += (radix === 8 ? 1 : 2) + len;
    } else {
      throw new PromqlError('bad_data', 'unknown escape sequence', i);
    }
  }
  throw new PromqlError('bad_data', 'unterminated quoted string', start);
}
