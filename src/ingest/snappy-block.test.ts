/**
 * Snappy's block format as remote write's senders compress it (snappyjs, which reads and writes what Prometheus's Go
 * library does), and every way a block can lie about itself refused with where it broke.
 */
import fc from 'fast-check';
import snappy from 'snappyjs';
import { describe, expect, it } from 'vitest';
import { snappyUncompress } from './snappy-block.js';

describe('snappyUncompress', () => {
  it('inflates what snappyjs compresses, literals and overlapping copies alike', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.integer({ min: 0, max: 200 }), (bytes, repeat) => {
        // Repeats make copies, including runs that overlap their own output.
        const input = Buffer.concat([Buffer.from(bytes), Buffer.alloc(repeat, 7), Buffer.from(bytes)]);
        expect(Buffer.from(snappyUncompress(snappy.compress(input), input.length))).toEqual(input);
      }),
    );
  });

  it('inflates what snappyjs compresses of label-like text: short literals between short and long copies', () => {
    const word = fc.constantFrom('__name__', 'http_requests_total', 'host', 'web-', 'cpu', '0', '17', 'job', 'node');
    fc.assert(
      fc.property(fc.array(word, { maxLength: 400 }), (words) => {
        const input = Buffer.from(words.join(''));
        expect(Buffer.from(snappyUncompress(snappy.compress(input), input.length))).toEqual(input);
      }),
    );
  });

  it('inflates a long literal (a 2-byte length) and the empty block', () => {
    const text = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 251));
    expect(Buffer.from(snappyUncompress(snappy.compress(text), 70_000))).toEqual(text);
    expect(snappyUncompress(Buffer.from([0]), 0)).toEqual(new Uint8Array(0));
  });

  it('refuses a truncated block, naming how far it got', () => {
    const text = Buffer.from('hello hello hello hello, remote write');
    const block = Buffer.from(snappy.compress(text));
    expect(() => snappyUncompress(block.subarray(0, block.length - 3), 1000)).toThrow(
      'snappy: the body is truncated inside the element at byte 11',
    );
    expect(() => snappyUncompress(Buffer.from([10, 8, 0x61, 0x62]), 1000)).toThrow(
      'snappy: the body is truncated inside the element at byte 1',
    );
    expect(() => snappyUncompress(Buffer.from([10, 4, 0x61, 0x62]), 1000)).toThrow(
      'snappy: the body is truncated: it inflates to 2 of the 10 bytes it declares',
    );
    expect(() => snappyUncompress(Buffer.from([0x80, 0x80]), 1000)).toThrow(
      'snappy: the body ends inside the length preamble',
    );
  });

  it('refuses copies before the start, output past the declared length and a length over the limit', () => {
    expect(() => snappyUncompress(Buffer.from([4, 0, 0x61, 0x01, 0x05]), 1000)).toThrow(
      "snappy: the copy at byte 3 reaches 5 bytes back, before the output's start",
    );
    expect(() => snappyUncompress(Buffer.from([1, 4, 0x61, 0x62]), 1000)).toThrow(
      'snappy: the element at byte 1 inflates past the 1 bytes the body declares',
    );
    expect(() => snappyUncompress(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), 1000)).toThrow(
      'snappy: the body declares 4294967295 bytes uncompressed, over the limit of 1000',
    );
    expect(() => snappyUncompress(Buffer.from('not snappy at all, just text'), 1000)).toThrow(
      "snappy: the copy at byte 1 reaches 1853038708 bytes back, before the output's start",
    );
  });
});
