/**
 * fast-check arbitraries of data_points cells as KairosDB writes them, every value type, leaning on the values that
 * break decoders (64-bit edges, NaN payloads, -0, subnormals, empty and astral strings, legacy nulls).
 */
import fc from 'fast-check';
import {
  encodeComplex,
  encodeDouble,
  encodeLegacyDouble,
  encodeLegacyFloat,
  encodeLegacyLong,
  encodeLong,
  encodeString,
} from '../../src/store/format/index.js';
import { anyChar } from './bytes.js';

export const MIN_LONG = -(2n ** 63n);
export const MAX_LONG = 2n ** 63n - 1n;

/** A cell's value bytes (null: what the protocol hands over for a null cell) and, in kairos_legacy rows, bit 0 of its column. */
export interface Cell {
  readonly flag: 0 | 1;
  readonly value: Buffer | null;
}

/** One partition's worth of cells of one data type. */
export interface TypedCells {
  readonly dataType: string;
  readonly cells: readonly Cell[];
}

/** Any 64-bit long, leaning on the edges: ±2^53 where doubles stop being exact, and Long.MIN/MAX. */
export const longArbitrary = fc.oneof(
  fc.bigInt({ min: MIN_LONG, max: MAX_LONG }),
  fc.bigInt({ min: -(2n ** 54n), max: 2n ** 54n }),
  fc.constantFrom(MIN_LONG, MAX_LONG, 0n, -1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 53n - 1n),
);

/** Any 8 bytes (NaN payloads included) or any double fast-check knows (-0, subnormals, infinities). */
export const doubleBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ minLength: 8, maxLength: 8 }),
  fc.double().map(encodeDouble),
);

export const DATA_TYPES = [
  'kairos_long',
  'kairos_long_nano',
  'kairos_double',
  'kairos_string',
  'kairos_complex',
  'kairos_legacy',
] as const;

/** Up to `maxLength` cells of one data type, the type drawn too. */
export function typedCells(maxLength: number): fc.Arbitrary<TypedCells> {
  return fc
    .constantFrom(...DATA_TYPES)
    .chain((dataType) =>
      fc.record({ dataType: fc.constant(dataType), cells: fc.array(cellOf(dataType), { maxLength, size: 'max' }) }),
    );
}

export function cellOf(dataType: string): fc.Arbitrary<Cell> {
  const cell = (a: fc.Arbitrary<Uint8Array>) => a.map((b): Cell => ({ flag: 0, value: Buffer.from(b) }));
  switch (dataType) {
    case 'kairos_long':
    case 'kairos_long_nano':
      return cell(longArbitrary.map(encodeLong));
    case 'kairos_double':
      return cell(doubleBytes);
    case 'kairos_string':
      return cell(
        fc
          .oneof(
            fc.constant(''),
            fc.array(anyChar, { maxLength: 12 }).map((c) => c.join('')),
          )
          .map(encodeString),
      );
    case 'kairos_complex':
      return cell(
        fc.oneof(
          fc.tuple(doubleBytes, doubleBytes).map(([re, im]) => Uint8Array.of(...re, ...im)),
          fc.tuple(fc.double(), fc.double()).map(([re, im]) => encodeComplex(re, im)),
        ),
      );
    case 'kairos_legacy':
      // ≤0.9.3 rows mix longs (flag 0; 0 is an empty blob, which may come back null) and floats or doubles (flag 1).
      return fc.oneof(
        longArbitrary.map((v): Cell => ({ flag: 0, value: Buffer.from(encodeLegacyLong(v)) })),
        fc.constant<Cell>({ flag: 0, value: null }),
        fc.double().map((v): Cell => ({ flag: 1, value: Buffer.from(encodeLegacyFloat(v)) })),
        fc.double().map((v): Cell => ({ flag: 1, value: Buffer.from(encodeLegacyDouble(v)) })),
      );
    default:
      throw new Error(`no cells for data type ${dataType}`);
  }
}

/**
 * The 4-byte column names of cells at the given offsets from the row time: shifted left with the cell's flag in
 * bit 0 in kairos_legacy rows and under the LEGACY unit, plain offsets otherwise.
 */
export function columnOf(offset: number, flag: 0 | 1, shifted: boolean): number {
  return (shifted ? (offset << 1) | flag : offset) >>> 0;
}
