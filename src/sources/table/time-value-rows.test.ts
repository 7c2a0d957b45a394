/**
 * Lean table pages: frames built cell by cell as the protocol lays them out, decoded into the rows with a value, for
 * every numeric type; bigints beyond ±2^53 kept exact; malformed pages refused with what is wrong. (The same pages
 * from a real Cassandra, lean and through the driver, are compared in test/integration/user-table.test.ts.)
 */
import cassandra from 'cassandra-driver';
import { describe, expect, it } from 'vitest';
import type { RowsMetadata } from '../../store/cassandra-client/lean-page-hook.js';
import { decodeTimeValues, TimeValuePages } from './time-value-rows.js';

const { dataTypes } = cassandra.types;

const meta = (valueType: number, ks = 'iot', table = 't'): RowsMetadata => ({
  keyspace: ks,
  table,
  columns: [
    { name: 'ts', type: { code: dataTypes.timestamp } },
    { name: 'v', type: { code: valueType } },
  ],
});

/** A cell: its int32 length, then its bytes (null: length −1, no bytes). */
function cell(bytes: Buffer | null): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(bytes === null ? -1 : bytes.length);
  return bytes === null ? length : Buffer.concat([length, bytes]);
}

const long = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
};
/** `size` bytes, filled by `write`. */
const filled = (size: number, write: (buffer: Buffer) => void): Buffer => {
  const buffer = Buffer.alloc(size);
  write(buffer);
  return buffer;
};

const encoders: Record<string, (v: number | bigint) => Buffer> = {
  double: (v) => filled(8, (b) => b.writeDoubleBE(Number(v))),
  float: (v) => filled(4, (b) => b.writeFloatBE(Number(v))),
  int: (v) => filled(4, (b) => b.writeInt32BE(Number(v))),
  smallint: (v) => filled(2, (b) => b.writeInt16BE(Number(v))),
  tinyint: (v) => filled(1, (b) => b.writeInt8(Number(v))),
  bigint: (v) => long(BigInt(v)),
};

/** A frame of rows [time, value | null] after 3 bytes of something else, as a socket chunk holds it. */
function frame(type: string, rows: readonly (readonly [number, number | bigint | null])[]): Buffer {
  return Buffer.concat([
    Buffer.from([1, 2, 3]),
    ...rows.flatMap(([t, v]) => [cell(long(BigInt(t))), cell(v === null ? null : encoders[type]!(v))]),
  ]);
}

describe('decodeTimeValues', () => {
  it.each([
    ['double', [1.5, -0, 5e-324, 1e308]],
    ['float', [1.5, -2.25, 1024]],
    ['int', [2 ** 31 - 1, -(2 ** 31), 0]],
    ['smallint', [32767, -32768, 7]],
    ['tinyint', [127, -128, 1]],
    ['bigint', [2 ** 53 - 1, -(2 ** 53 - 1), 42]],
  ] as const)('decodes %s values and leaves rows without a value out', (type, values) => {
    const rows = [
      [1000, values[0]],
      [2000, null],
      [3000, values[1]],
      [-4000, values[2]],
    ] as const;
    const page = decodeTimeValues(frame(type, rows), 3, rows.length, meta(dataTypes[type]));
    expect(page.length).toBe(4);
    expect([...page.times]).toEqual([1000, 3000, -4000]);
    expect([...page.values]).toEqual([values[0], values[1], values[2]]);
    expect(page.exact).toBeUndefined();
  });

  it('keeps bigints beyond ±2^53 exact, and the values before them', () => {
    const rows = [
      [1, 5n],
      [2, 2n ** 63n - 1n],
      [3, -(2n ** 60n)],
      [4, 7n],
    ] as const;
    const page = decodeTimeValues(frame('bigint', rows), 3, 4, meta(dataTypes.bigint));
    expect([...page.exact!]).toEqual([5n, 2n ** 63n - 1n, -(2n ** 60n), 7n]);
    expect([...page.values]).toEqual([5, 2 ** 63, -(2 ** 60), 7]);
  });

  it.each([
    ['a negative count', (f: Buffer) => [f, 3, -1], 'a table page is malformed: row 0 of -1: it claims -1 rows'],
    [
      'a count past the frame',
      (f: Buffer) => [f, 3, 3],
      'a table page is malformed: row 2 of 3: its time length is past the end of the frame',
    ],
    [
      'a short time',
      () => [Buffer.concat([Buffer.from([1, 2, 3]), cell(Buffer.alloc(4))]), 3, 1],
      'a table page is malformed: row 0 of 1: its time has 4 bytes, not 8',
    ],
    [
      'a value of the wrong size',
      (f: Buffer) => [Buffer.concat([f.subarray(0, 15), cell(Buffer.alloc(4))]), 3, 1],
      'a table page is malformed: row 0 of 1: its value has 4 bytes, not 8',
    ],
    [
      'a value cut off',
      (f: Buffer) => [f.subarray(0, f.length - 1), 3, 2],
      'a table page is malformed: row 1 of 2: its value is past the end of the frame',
    ],
  ] as const)('refuses %s', (_, cut, message) => {
    const [buf, start, count] = cut(
      frame('double', [
        [1, 1],
        [2, 2],
      ]),
    ) as [Buffer, number, number];
    expect(() => decodeTimeValues(buf, start, count, meta(dataTypes.double))).toThrow(message);
  });
});

describe('TimeValuePages', () => {
  const pages = new TimeValuePages('iot', 't', 'ts');
  it('matches the table reads of a time and a numeric value, and nothing else', () => {
    expect(pages.matches(meta(dataTypes.double))).toBe(true);
    expect(pages.matches(meta(dataTypes.bigint))).toBe(true);
    expect(pages.matches(meta(dataTypes.text))).toBe(false);
    expect(pages.matches(meta(dataTypes.decimal))).toBe(false);
    expect(pages.matches(meta(dataTypes.double, 'iot', 'other'))).toBe(false);
    expect(pages.matches(meta(dataTypes.double, 'system', 't'))).toBe(false);
    expect(pages.matches({ ...meta(dataTypes.double), columns: [meta(dataTypes.double).columns[0]!] })).toBe(false);
  });

  it('takes only mapped value columns beside the time (a numeric tag is no value), and bigint times only in milliseconds', () => {
    const mapped = new TimeValuePages('iot', 't', 'ts', new Set(['v']));
    const probe = {
      ...meta(dataTypes.int),
      columns: [meta(dataTypes.int).columns[0]!, { name: 'probe', type: { code: dataTypes.int } }],
    };
    expect([mapped.matches(meta(dataTypes.int)), mapped.matches(probe)]).toEqual([true, false]);
    const bigintTime = {
      ...meta(dataTypes.double),
      columns: [{ name: 'ts', type: { code: dataTypes.bigint } }, meta(dataTypes.double).columns[1]!],
    };
    expect([
      mapped.matches(bigintTime),
      new TimeValuePages('iot', 't', 'ts', undefined, true).matches(bigintTime),
    ]).toEqual([false, true]);
  });
});
