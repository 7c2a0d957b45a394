/**
 * The request-body JSON parser: JSON.parse's answers where numbers do not matter, number text kept where it does,
 * and syntax errors with their line and column.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonNumber, MAX_DEPTH, parseJson } from './json-text.js';

const exact = { exactNumbers: true };
const plain = { exactNumbers: false };

describe('parseJson', () => {
  it('keeps the text of numbers with a fraction, an exponent, or beyond 2^53', () => {
    expect(
      parseJson(
        '[1, -0, 1.0, 1e3, -2.5E-1, 9007199254740991, 9007199254740992, -9223372036854775808, 12345678901234567890]',
        exact,
      ),
    ).toEqual([
      1,
      -0,
      new JsonNumber('1.0'),
      new JsonNumber('1e3'),
      new JsonNumber('-2.5E-1'),
      9007199254740991,
      new JsonNumber('9007199254740992'),
      new JsonNumber('-9223372036854775808'),
      new JsonNumber('12345678901234567890'),
    ]);
  });

  it('gives plain numbers when asked', () => {
    expect(parseJson('{"a": [1.0, 1e3, 9007199254740993]}', plain)).toEqual({ a: [1, 1000, 9007199254740992] });
  });

  it('answers as JSON.parse does for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(parseJson(text, plain)).toEqual(JSON.parse(text));
        expect(parseJson(JSON.stringify(value, null, 2), plain)).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('decodes escapes, including lone surrogates, and keeps __proto__ as an ordinary key', () => {
    const text = String.raw`{"s": "a\"b\\c\/d\b\f\n\r\t\u00e9\ud83c\udf0d\ud800", "__proto__": {"x": 1}}`;
    const value = parseJson(text, exact) as Record<string, unknown>;
    expect(value).toEqual(JSON.parse(text));
    expect(Object.keys(value)).toEqual(['s', '__proto__']);
  });

  it('makes objects without a prototype, so keys such as constructor are data and absent ones read undefined', () => {
    const value = parseJson('{"tags": {"__proto__": "x", "constructor": "c", "h": "y"}, "n": {}}', exact) as Record<
      string,
      Record<string, unknown>
    >;
    expect([
      Object.getPrototypeOf(value),
      Object.getPrototypeOf(value['tags']),
      Object.getPrototypeOf(value['n']),
    ]).toEqual([null, null, null]);
    expect(Object.entries(value['tags']!)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'c'],
      ['h', 'y'],
    ]);
    expect([value['n']!['constructor'], value['n']!['toString'], value['hasOwnProperty']]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(JSON.stringify(value)).toBe('{"tags":{"__proto__":"x","constructor":"c","h":"y"},"n":{}}');
  });

  it.each([
    ['', 'the body is empty'],
    ['  \n ', 'the body is empty'],
    ['{"a": 1,}', 'unexpected "}", expected a property name in double quotes at line 1, column 9'],
    ['{"a" 1}', `unexpected "1", expected ':' at line 1, column 6`],
    ['{\n  "a": 1\n  "b": 2\n}', `unexpected "\\"", expected ',' or '}' at line 3, column 3`],
    ['[1, 2', `unexpected end of input, expected ',' or ']' at line 1, column 6`],
    ['[1 2]', `unexpected "2", expected ',' or ']' at line 1, column 4`],
    ['{"a": tru}', 'invalid literal, expected true at line 1, column 7'],
    ['{"a": 01}', 'invalid number at line 1, column 7'],
    ['[1.]', 'invalid number at line 1, column 2'],
    ['[-]', 'invalid number at line 1, column 2'],
    ['[1e+]', 'invalid number at line 1, column 2'],
    ['["a\tb"]', 'unescaped control character in a string at line 1, column 4'],
    ['["a\\x"]', 'invalid escape in a string at line 1, column 4'],
    ['["a\\u12"]', 'invalid escape in a string at line 1, column 4'],
    ['["abc', 'unterminated string at line 1, column 6'],
    ['{"a": 1} x', 'unexpected text after the JSON value at line 1, column 10'],
    ["{'a': 1}", `unexpected "'", expected a property name in double quotes at line 1, column 2`],
    ['[NaN]', 'unexpected "N", expected a value at line 1, column 2'],
    ['{"a":', 'unexpected end of input, expected a value at line 1, column 6'],
  ])('rejects %j: %s', (text, message) => {
    expect(() => parseJson(text, exact)).toThrow(message);
  });

  it(`refuses nesting deeper than ${MAX_DEPTH} levels instead of overflowing the stack`, () => {
    expect(parseJson('['.repeat(MAX_DEPTH) + ']'.repeat(MAX_DEPTH), exact)).toBeInstanceOf(Array);
    expect(() => parseJson('['.repeat(100_000), exact)).toThrow(
      `nesting deeper than ${MAX_DEPTH} levels at line 1, column ${MAX_DEPTH + 1}`,
    );
  });
});
