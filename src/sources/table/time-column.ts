/**
 * The time column of a user's table as the engine's epoch milliseconds: `timestamp`, `bigint` epoch time in a unit the
 * mapping names (seconds, milliseconds, microseconds) and `timeuuid` (version 1 UUIDs, which Cassandra orders by their
 * time first). One object per checked table binds range bounds, decodes cells and makes the value a write stores.
 */
import cassandra from 'cassandra-driver';

export const TIME_TYPES = ['timestamp', 'bigint', 'timeuuid'] as const;
export type TimeType = (typeof TIME_TYPES)[number];
export const TIME_UNITS = ['milliseconds', 'seconds', 'microseconds'] as const;
export type TimeUnit = (typeof TIME_UNITS)[number];

export class TimeColumn {
  /** `unit` is a bigint column's; the other types carry their own. */
  constructor(
    readonly type: TimeType,
    readonly unit: TimeUnit = 'milliseconds',
  ) {}

  /** The CQL a bound range's lower (`>=`) or upper (`<=`) end takes: a timeuuid compares with the UUIDs of its ms. */
  marker(end: 'from' | 'to'): string {
    if (this.type !== 'timeuuid') return '?';
    return end === 'from' ? 'minTimeuuid(?)' : 'maxTimeuuid(?)';
  }

  /** The bound value of `ts >= …` for rows whose time in ms is >= fromMs. */
  from(fromMs: number): unknown {
    if (this.type !== 'bigint') return new Date(fromMs);
    switch (this.unit) {
      case 'seconds':
        return long(Math.ceil(fromMs / 1000));
      case 'microseconds':
        return micros(BigInt(fromMs) * 1000n);
      default:
        return long(fromMs);
    }
  }

  /** The bound value of `ts <= …` for rows whose time in ms is <= toMs (microseconds of that ms included). */
  to(toMs: number): unknown {
    if (this.type !== 'bigint') return new Date(toMs);
    switch (this.unit) {
      case 'seconds':
        return long(Math.floor(toMs / 1000));
      case 'microseconds':
        return micros(BigInt(toMs) * 1000n + 999n);
      default:
        return long(toMs);
    }
  }

  /** A cell's time in epoch ms; microseconds are floored to their millisecond, as the engine's times are ms. */
  ms(cell: unknown): number {
    if (cell instanceof Date) return cell.getTime();
    if (cell instanceof cassandra.types.TimeUuid) return cell.getDate().getTime();
    const n = cell instanceof cassandra.types.Long ? BigInt(cell.toString()) : BigInt(cell as number);
    switch (this.unit) {
      case 'seconds':
        return Number(n * 1000n);
      case 'microseconds':
        return Number(n / 1000n - (n % 1000n < 0n ? 1n : 0n));
      default:
        return Number(n);
    }
  }

  /**
   * The value a write stores for a point at `ms`: a timeuuid is a new one of that ms (so every write adds a row); the
   * other types store what a range from `ms` starts at (a seconds column takes only whole seconds: `holds`).
   */
  value(ms: number): unknown {
    return this.type === 'timeuuid' ? cassandra.types.TimeUuid.fromDate(new Date(ms)) : this.from(ms);
  }

  /** Whether a time of `ms` can be stored without losing part of it (a seconds column holds whole seconds). */
  holds(ms: number): boolean {
    return !(this.type === 'bigint' && this.unit === 'seconds' && ms % 1000 !== 0);
  }
}

function long(n: number): cassandra.types.Long {
  return cassandra.types.Long.fromNumber(n);
}

/** Microseconds of times near ±8.64e15 ms are past 2^53: built exactly. */
function micros(n: bigint): cassandra.types.Long {
  return cassandra.types.Long.fromString(n.toString());
}
