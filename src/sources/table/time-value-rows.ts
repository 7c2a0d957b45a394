/**
 * A user table's read pages decoded from the CQL frame's bytes into typed arrays (the KairosDB store's lean pages, for
 * `SELECT <time>, <numeric value>`): no Row object, no Date, no boxed number per row. Rows whose value cell is null
 * are no points and are left out here. Text and decimal values go through the driver's own rows.
 */
import cassandra from 'cassandra-driver';
import type { ColumnSpec, LeanReader, RowsMetadata } from '../../store/cassandra-client/lean-page-hook.js';

const { dataTypes } = cassandra.types;

/** The value types decoded here, by protocol type code, with the bytes a cell of each holds. */
const NUMERIC: ReadonlyMap<number, number> = new Map([
  [dataTypes.double, 8],
  [dataTypes.float, 4],
  [dataTypes.int, 4],
  [dataTypes.bigint, 8],
  [dataTypes.smallint, 2],
  [dataTypes.tinyint, 1],
]);

/** One page: the times and values of its rows with a value, and the exact values of bigints beyond ±2^53. */
export class TimeValueRows {
  constructor(
    /** Rows in the page, null values included (the driver's `rowLength`). */
    readonly length: number,
    readonly times: Float64Array,
    readonly values: Float64Array,
    readonly exact: BigInt64Array | undefined,
  ) {}
}

/** Opts a table's client into lean pages for its reads of `<time>, <value>`. */
export class TimeValuePages implements LeanReader {
  /**
   * `values`: the mapped value columns (a numeric tag beside the time, as a read of its values selects it, is no value).
   * `bigintMs`: a bigint time column holds epoch ms, the same 8 bytes as a timestamp (other units go through the driver).
   */
  constructor(
    private readonly keyspace: string,
    private readonly table: string,
    private readonly time: string,
    private readonly values?: ReadonlySet<string>,
    private readonly bigintMs = false,
  ) {}

  matches(meta: RowsMetadata): boolean {
    const [time, value] = meta.columns;
    return (
      meta.columns.length === 2 &&
      this.ofTable(meta, time!) &&
      time!.name === this.time &&
      (time!.type.code === dataTypes.timestamp || (this.bigintMs && time!.type.code === dataTypes.bigint)) &&
      this.ofTable(meta, value!) &&
      (this.values === undefined || this.values.has(value!.name)) &&
      NUMERIC.has(value!.type.code)
    );
  }

  read(buf: Buffer, start: number, count: number, meta: RowsMetadata): TimeValueRows {
    return decodeTimeValues(buf, start, count, meta);
  }

  private ofTable(meta: RowsMetadata, column: ColumnSpec): boolean {
    return (column.ksname ?? meta.keyspace) === this.keyspace && (column.tablename ?? meta.table) === this.table;
  }
}

/**
 * `count` rows of `[bytes] timestamp, [bytes] value` at `buf[start]`. Every length is checked against the frame
 * before it is read, so a malformed page fails with what is wrong, never by reading past a cell.
 */
export function decodeTimeValues(buf: Buffer, start: number, count: number, meta: RowsMetadata): TimeValueRows {
  if (count < 0) throw malformed(0, count, `it claims ${count} rows`);
  const code = meta.columns[1]?.type.code ?? -1;
  const size = NUMERIC.get(code);
  if (size === undefined) throw new Error(`the page's value column has type ${code}, which is not decoded lean`);
  const times = new Float64Array(count);
  const values = new Float64Array(count);
  let exact: BigInt64Array | undefined;
  let n = 0;
  let p = start;
  for (let i = 0; i < count; i++) {
    if (p + 4 > buf.length) throw malformed(i, count, 'its time length is past the end of the frame');
    const timeLength = buf.readInt32BE(p);
    if (timeLength !== 8) throw malformed(i, count, `its time has ${timeLength} bytes, not 8`);
    if (p + 16 > buf.length) throw malformed(i, count, 'its time is past the end of the frame');
    const t = Number(buf.readBigInt64BE(p + 4));
    p += 12;
    const valueLength = buf.readInt32BE(p);
    p += 4;
    if (valueLength < 0) continue;
    if (valueLength !== size) throw malformed(i, count, `its value has ${valueLength} bytes, not ${size}`);
    if (p + size > buf.length) throw malformed(i, count, 'its value is past the end of the frame');
    times[n] = t;
    switch (code) {
      case dataTypes.double:
        values[n] = buf.readDoubleBE(p);
        break;
      case dataTypes.float:
        values[n] = buf.readFloatBE(p);
        break;
      case dataTypes.int:
        values[n] = buf.readInt32BE(p);
        break;
      case dataTypes.smallint:
        values[n] = buf.readInt16BE(p);
        break;
      case dataTypes.tinyint:
        values[n] = buf.readInt8(p);
        break;
      default: {
        const big = buf.readBigInt64BE(p);
        values[n] = Number(big);
        if (big > MAX_SAFE || big < -MAX_SAFE) {
          if (exact === undefined) {
            exact = new BigInt64Array(count);
            for (let j = 0; j < n; j++) exact[j] = BigInt(values[j]!);
          }
        }
        if (exact !== undefined) exact[n] = big;
      }
    }
    p += size;
    n++;
  }
  return new TimeValueRows(count, times.subarray(0, n), values.subarray(0, n), exact?.subarray(0, n));
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function malformed(row: number, count: number, why: string): Error {
  return new Error(`a table page is malformed: row ${row} of ${count}: ${why}`);
}
