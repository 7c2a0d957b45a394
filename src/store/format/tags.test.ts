import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeTagString, encodeTagString } from './tags.js';
import { anyChar } from '../../../test/support/bytes.js';

/** Names and values full of the two special characters, mixed with any code point. */
const tagText = fc.string({
  unit: fc.oneof(fc.constantFrom(':', '=', '\u0000'), anyChar),
  maxLength: 12,
});
const tagMap = fc.dictionary(tagText, tagText, { maxKeys: 6 });

describe('encodeTagString', () => {
  it('writes the reference example', () => {
    expect(encodeTagString({ host: 'a', dc: 'x:y' })).toBe('dc=x=:y:host=a:');
  });

  it('escapes keys with `:` and values with `=`', () => {
    expect(encodeTagString({ 'a:b': 'p=q', 'c=d': 'x:y' })).toBe('a::b=p==q:c:=d=x=:y:');
    expect(encodeTagString({ ':=': '=:' })).toBe(':::=====::');
  });

  it('gives an empty string for no tags and keeps empty names and values', () => {
    expect(encodeTagString({})).toBe('');
    expect(encodeTagString({ '': '' })).toBe('=:');
  });

  it("sorts keys in UTF-16 code-unit order (Java's), not code-point order", () => {
    // U+1F600 is D83D DE00 in UTF-16, which sorts before U+FFFD; by code point it would come after.
    expect(encodeTagString({ '\uFFFD': '1', '😀': '2', a: '3', B: '4' })).toBe('B=4:a=3:😀=2:\uFFFD=1:');
    expect(encodeTagString({ '10': 'x', '9': 'y' })).toBe('10=x:9=y:');
  });
});

describe('decodeTagString', () => {
  it('reads the reference example', () => {
    expect(decodeTagString('dc=x=:y:host=a:')).toEqual({ dc: 'x:y', host: 'a' });
  });

  it('unescapes keys and values', () => {
    expect(decodeTagString('a::b=p==q:c:=d=x=:y:')).toEqual({ 'a:b': 'p=q', 'c=d': 'x:y' });
  });

  it('reads unescaped strings written by KairosDB <= 1.1.2', () => {
    const tags = decodeTagString('dc=east:host=server1:');
    expect(tags).toEqual({ dc: 'east', host: 'server1' });
    expect(Object.keys(tags)).toEqual(['dc', 'host']);
  });

  it('drops a trailing tag without its closing `:`, as KairosDB does', () => {
    expect(decodeTagString('a=b:c=d')).toEqual({ a: 'b' });
    expect(decodeTagString('a=b:c')).toEqual({ a: 'b' });
    expect(decodeTagString('')).toEqual({});
  });

  it('returns keys in sorted order even when the string is not sorted', () => {
    expect(Object.keys(decodeTagString('z=1:a=2:m=3:'))).toEqual(['a', 'm', 'z']);
  });

  it('cannot order integer-like keys, which JS objects always list first; encoding re-sorts them', () => {
    const tags = decodeTagString('10=x:9=y:a=z:');
    expect(Object.keys(tags)).toEqual(['9', '10', 'a']);
    expect(encodeTagString(tags)).toBe('10=x:9=y:a=z:');
  });

  it('reads __proto__, constructor and toString as ordinary tag names, into a record without a prototype', () => {
    const tags = decodeTagString('__proto__=x:constructor=c:toString=t:');
    expect(Object.getPrototypeOf(tags)).toBe(null);
    expect(Object.entries(tags)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'c'],
      ['toString', 't'],
    ]);
    expect(encodeTagString(tags)).toBe('__proto__=x:constructor=c:toString=t:');
    // Absent names read as absent, not as Object.prototype's members; the unsorted path builds the same record.
    // biome-ignore lint/suspicious/noProto: a tag named __proto__ is what is tested.
    expect([decodeTagString('a=1:')['constructor'], decodeTagString('z=1:__proto__=2:')['__proto__']]).toEqual([
      undefined,
      '2',
    ]);
  });

  it('round-trips any tag map', () => {
    fc.assert(
      fc.property(tagMap, (tags) => {
        expect(decodeTagString(encodeTagString(tags))).toEqual({ ...tags });
      }),
    );
  });

  it('re-encodes a decoded string to the same string', () => {
    fc.assert(
      fc.property(tagMap, (tags) => {
        const s = encodeTagString(tags);
        expect(encodeTagString(decodeTagString(s))).toBe(s);
      }),
    );
  });
});
