/**
 * Compression's parts on their own: Accept-Encoding negotiation and the cut of an answer into chunks that encode
 * exactly. The AnswerWriter's tests compress (answer-writer.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { acceptedCoding, answerEncoding, textChunks, varies } from './compression.js';

describe('acceptedCoding', () => {
  it.each([
    [null, undefined],
    ['', undefined],
    ['identity', undefined],
    ['deflate', undefined],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['br', 'br'],
    // Browsers, curl --compressed, undici: brotli on a tie.
    ['gzip, deflate, br, zstd', 'br'],
    ['gzip, deflate', 'gzip'],
    ['*', 'br'],
    ['gzip;q=1.0, br;q=0.5', 'gzip'],
    ['br;q=0, *', 'gzip'],
    ['gzip;q=0, br;q=0', undefined],
    ['*;q=0', undefined],
    ['gzip ; q=0.8 , br ; q=0.9', 'br'],
    // A q-value that does not parse leaves its element out.
    ['br;q=2, gzip', 'gzip'],
    ['br;level=5, gzip;q=0.1', 'gzip'],
  ] as const)('%o → %o', (header, coding) => {
    expect(acceptedCoding(header)).toBe(coding);
  });

  it('compresses only answers from the threshold up, and only when on', () => {
    const on = { enabled: true, minBytes: 1000 };
    expect([
      answerEncoding('gzip', on),
      answerEncoding('identity', on),
      answerEncoding('gzip', { ...on, enabled: false }),
    ]).toEqual([{ coding: 'gzip', minBytes: 1000 }, { coding: undefined, minBytes: 1000 }, undefined]);
    expect([varies(999, on), varies(1000, on), varies(1000, { ...on, enabled: false })]).toEqual([false, true, false]);
  });
});

describe('textChunks', () => {
  it('cuts a text into pieces of 64 Ki characters that join back into it', () => {
    const text = 'x'.repeat(3 * 65_536 + 5);
    expect([...textChunks(text)].map((chunk) => chunk.length)).toEqual([65_536, 65_536, 65_536, 5]);
    expect([...textChunks('')]).toEqual([]);
  });

  it('never cuts a surrogate pair, so each piece encodes to the bytes of the whole', () => {
    // The emoji's high surrogate is the 65,536th character.
    const text = `${'a'.repeat(65_535)}😀${'b'.repeat(10)}`;
    const chunks = [...textChunks(text)];
    expect(chunks.map((chunk) => chunk.length)).toEqual([65_537, 10]);
    expect(Buffer.concat(chunks.map((chunk) => Buffer.from(chunk, 'utf8')))).toEqual(Buffer.from(text, 'utf8'));
  });
});
