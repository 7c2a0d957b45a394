/**
 * `time` (TimeGroupBy): id = ((t − query start) / size) mod group_count, with fixed sizes (a year is 52 weeks). For
 * MONTHS KairosDB counts whole UTC calendar months and ignores the range's value: so does this.
 */
import type { Duration } from '../../model/time-units.js';
import type { GroupByResult, PointGrouper } from './group-by.js';

const SIZE_MS: Record<Exclude<Duration['unit'], 'MONTHS'>, number> = {
  MILLISECONDS: 1,
  SECONDS: 1000,
  MINUTES: 60_000,
  HOURS: 3_600_000,
  DAYS: 86_400_000,
  WEEKS: 604_800_000,
  YEARS: 52 * 604_800_000,
};

export class TimeGrouper implements PointGrouper {
  private readonly sizeMs: number;
  private readonly startYear: number;
  private readonly startMonth: number;

  constructor(
    private readonly rangeSize: Duration,
    private readonly groupCount: number,
    private readonly startMs: number,
  ) {
    this.sizeMs = rangeSize.unit === 'MONTHS' ? 0 : rangeSize.value * SIZE_MS[rangeSize.unit];
    const start = new Date(startMs);
    this.startYear = start.getUTCFullYear();
    this.startMonth = start.getUTCMonth();
  }

  id(ts: number): number {
    if (this.sizeMs === 0) {
      const t = new Date(ts);
      return ((t.getUTCFullYear() - this.startYear) * 12 + (t.getUTCMonth() - this.startMonth)) % this.groupCount;
    }
    return Math.trunc((ts - this.startMs) / this.sizeMs) % this.groupCount;
  }

  result(id: number): GroupByResult {
    return {
      name: 'time',
      range_size: { value: this.rangeSize.value, unit: this.rangeSize.unit },
      group_count: this.groupCount,
      group: { group_number: id },
    };
  }
}
