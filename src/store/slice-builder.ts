/**
 * Decodes a partition's cells (4-byte column name + KairosDB value bytes) into columnar slices. Both stores feed
 * it, so every decoding rule (units, legacy flags, 64-bit longs) lives here once.
 */
import type { RowKey, RowSpec } from './store.js';
import type { Slice, SliceKind } from '../model/series.js';
import {
  decodeColumn,
  decodeDouble,
  decodeLegacyDouble,
  decodeLegacyLong,
  decodeLong,
  decodeString,
  legacyColumnIsDouble,
  sliceKindOf,
} from './format/index.js';

export const DEFAULT_PAGE_SIZE = 4096;

/**
 * Accumulates cells of one partition, in scan order, into pages of `pageSize` points. `add` returns the page it
 * completed, if any (a full page, or the run that ended because a legacy row switched between long and float).
 * The first page starts at `firstCapacity` points and grows eightfold as it fills, up to `pageSize`: a store that cannot tell
 * a partition's size before it reads it (the embedded store) passes a small one, so that a one-point partition does
 * not allocate a whole page (a query over many such partitions allocated mostly empty pages: bench/RESULTS.md,
 * "Embedded store: a one-point partition no longer allocates a whole page"). Later pages are whole.
 */
export class SliceBuilder {
  private readonly legacy: boolean;
  private readonly rowKind: SliceKind | undefined;
  private kind: SliceKind | undefined;
  private length = 0;
  // Empty until `begin` allocates the first page, which it does anyway: a scan that finds nothing allocates nothing.
  private timestamps = EMPTY;
  private numbers = EMPTY;
  private imaginary: Float64Array | undefined;
  private strings: string[] | undefined;
  private exact: BigInt64Array | undefined;
  /** Points the current page's arrays hold; a page is handed out at `pageSize` points, or earlier by flush. */
  private capacity = 0;
  private pages = 0;

  constructor(
    private readonly key: RowKey,
    private readonly spec: RowSpec,
    private readonly pageSize: number = DEFAULT_PAGE_SIZE,
    private readonly firstCapacity: number = pageSize,
  ) {
    const kind = sliceKindOf(key.dataType);
    if (kind === undefined)
      throw new Error(`cannot decode data type ${JSON.stringify(key.dataType)} of metric ${key.metric}`);
    this.legacy = kind === 'legacy';
    this.rowKind = kind === 'legacy' ? undefined : kind;
  }

  /** Adds the cell `column` with value bytes `buf[start, end)`. */
  add(column: number, buf: Uint8Array, start: number, end: number): Slice | undefined {
    const kind = this.legacy ? (legacyColumnIsDouble(column) ? 'double' : 'long') : this.rowKind!;
    let done: Slice | undefined;
    if (this.length === this.pageSize || (this.length > 0 && kind !== this.kind)) done = this.take();
    if (this.length === 0) this.begin(kind);
    else if (this.length === this.capacity) this.grow();
    const i = this.length++;
    this.timestamps[i] = decodeColumn(this.spec, this.key.rowTime, column, this.legacy);
    switch (kind) {
      case 'long': {
        const v = this.legacy ? decodeLegacyLong(buf, start, end) : decodeLong(buf, start, end);
        if (typeof v === 'number') {
          this.numbers[i] = v;
          if (this.exact !== undefined) this.exact[i] = BigInt(v);
        } else {
          this.numbers[i] = Number(v);
          this.needExact()[i] = v;
        }
        break;
      }
      case 'double':
        this.numbers[i] = this.legacy ? decodeLegacyDouble(buf, start, end) : decodeDouble(buf, start, end);
        break;
      case 'string':
        this.strings!.push(decodeString(buf, start, end));
        break;
      case 'complex':
        // Two reads rather than decodeComplex, whose pair would be one object per point.
        this.numbers[i] = decodeDouble(buf, start, end);
        this.imaginary![i] = decodeDouble(buf, start + 8, end);
        break;
    }
    return done;
  }

  /** `double` or `long` for a row of that kind alone (not kairos_legacy): `frameCells` may take its cells. */
  get framedKind(): 'double' | 'long' | undefined {
    return this.rowKind === 'double' || this.rowKind === 'long' ? this.rowKind : undefined;
  }

  /**
   * Adds the `count` cells at `view[p]` (the bytes of `buf`) of a row of doubles or of longs (`framedKind`), each two
   * protocol [bytes] (a 32-bit length, then that many bytes; a cassandra/scan-rows.ts page, checked to fit its frame),
   * as `add` would one by one, and yields the slices it completes; returns the position after the cells. One loop over
   * the page, through a DataView: about half of `add`'s time per cell (`npm run bench:page-decode`).
   */
  *frameCells(view: DataView, buf: Uint8Array, p: number, count: number): Generator<Slice, number, undefined> {
    const { spec, key } = this;
    const kind = this.rowKind as 'double' | 'long';
    for (let i = 0; i < count; ) {
      if (this.length === this.pageSize) yield this.take();
      if (this.length === 0) this.begin(kind);
      else if (this.length === this.capacity) this.grow();
      const timestamps = this.timestamps;
      const numbers = this.numbers;
      const stop = this.length + Math.min(this.capacity - this.length, count - i);
      i += stop - this.length;
      for (let j = this.length; j < stop; j++) {
        const column = view.getUint32(p + 4);
        p += 4 + view.getInt32(p);
        const valueLength = view.getInt32(p);
        p += 4;
        // A null value is an empty one, refused as the value's own decoder refuses it.
        const end = valueLength > 0 ? p + valueLength : p;
        timestamps[j] = decodeColumn(spec, key.rowTime, column, false);
        if (kind === 'double') {
          if (valueLength < 8) decodeDouble(buf, p, end);
          numbers[j] = view.getFloat64(p);
        } else {
          const v = decodeLong(buf, p, end);
          if (typeof v === 'number') {
            numbers[j] = v;
            if (this.exact !== undefined) this.exact[j] = BigInt(v);
          } else {
            numbers[j] = Number(v);
            // needExact copies the exact values of the points before this one.
            this.length = j + 1;
            this.needExact()[j] = v;
          }
        }
        p = end;
      }
      this.length = stop;
    }
    return p;
  }

  /** The last, partial page. */
  flush(): Slice | undefined {
    return this.length > 0 ? this.take() : undefined;
  }

  private begin(kind: SliceKind): void {
    this.kind = kind;
    this.capacity = this.pages++ === 0 ? Math.max(1, Math.min(this.firstCapacity, this.pageSize)) : this.pageSize;
    // Pages are handed out, never reused: consumers may keep a slice while the scan goes on.
    this.timestamps = new Float64Array(this.capacity);
    this.numbers = kind === 'string' ? EMPTY : new Float64Array(this.capacity);
    this.imaginary = kind === 'complex' ? new Float64Array(this.capacity) : undefined;
    this.strings = kind === 'string' ? [] : undefined;
    this.exact = undefined;
  }

  /** Grows the first page's arrays eightfold, up to a whole page: two copies of a few hundred points to reach 4,096. */
  private grow(): void {
    this.capacity = Math.min(this.pageSize, this.capacity * 8);
    const larger = <T extends Float64Array | BigInt64Array>(array: T, make: (n: number) => T): T => {
      const next = make(this.capacity);
      next.set(array as never);
      return next;
    };
    this.timestamps = larger(this.timestamps, (n) => new Float64Array(n));
    if (this.numbers !== EMPTY) this.numbers = larger(this.numbers, (n) => new Float64Array(n));
    if (this.imaginary !== undefined) this.imaginary = larger(this.imaginary, (n) => new Float64Array(n));
    if (this.exact !== undefined) this.exact = larger(this.exact, (n) => new BigInt64Array(n));
  }

  /** Longs beyond ±2^53 need their exact values kept beside the numeric view; earlier ones were safe integers. */
  private needExact(): BigInt64Array {
    if (this.exact === undefined) {
      this.exact = new BigInt64Array(this.capacity);
      for (let j = 0; j < this.length - 1; j++) this.exact[j] = BigInt(this.numbers[j]!);
    }
    return this.exact;
  }

  private take(): Slice {
    const n = this.length;
    this.length = 0;
    const key = this.key;
    const timestamps = this.timestamps.subarray(0, n);
    switch (this.kind!) {
      case 'string':
        return { key, kind: 'string', timestamps, values: this.strings! };
      case 'complex':
        return {
          key,
          kind: 'complex',
          timestamps,
          values: this.numbers.subarray(0, n),
          imaginary: this.imaginary!.subarray(0, n),
        };
      default: {
        const slice = { key, kind: this.kind as 'long' | 'double', timestamps, values: this.numbers.subarray(0, n) };
        return this.exact === undefined ? slice : { ...slice, exact: this.exact.subarray(0, n) };
      }
    }
  }
}

const EMPTY = new Float64Array(0);
