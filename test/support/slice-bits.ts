/**
 * Slices as plain data that compares bit for bit: every Float64Array as the hex of its bytes (NaN payloads and -0
 * included), the size of the arrays behind them, exact longs as bigints, strings as they are.
 */
import type { Slice } from '../../src/model/series.js';

export interface SliceBits {
  readonly key: Slice['key'];
  readonly kind: Slice['kind'];
  readonly timestamps: string;
  readonly values: string | readonly string[];
  readonly imaginary?: string;
  readonly exact?: readonly bigint[];
  /** Elements of the arrays the views sit on: the builder allocates whole pages, which the decoders must agree on. */
  readonly allocated: readonly number[];
}

export function sliceBits(slice: Slice): SliceBits {
  const common = { key: slice.key, kind: slice.kind, timestamps: hexOf(slice.timestamps) };
  switch (slice.kind) {
    case 'string':
      return { ...common, values: [...slice.values], allocated: [lengthBehind(slice.timestamps)] };
    case 'complex':
      return {
        ...common,
        values: hexOf(slice.values),
        imaginary: hexOf(slice.imaginary),
        allocated: [lengthBehind(slice.timestamps), lengthBehind(slice.values), lengthBehind(slice.imaginary)],
      };
    default: {
      const bits = {
        ...common,
        values: hexOf(slice.values),
        allocated: [lengthBehind(slice.timestamps), lengthBehind(slice.values)],
      };
      return slice.exact === undefined
        ? bits
        : { ...bits, exact: [...slice.exact], allocated: [...bits.allocated, lengthBehind(slice.exact)] };
    }
  }
}

/** Every slice of a scan, as bits. */
export async function scanBits(slices: AsyncIterable<Slice> | Iterable<Slice>): Promise<SliceBits[]> {
  const out: SliceBits[] = [];
  for await (const slice of slices) out.push(sliceBits(slice));
  return out;
}

function hexOf(values: Float64Array): string {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('hex');
}

function lengthBehind(view: Float64Array | BigInt64Array): number {
  return view.buffer.byteLength / view.BYTES_PER_ELEMENT;
}
