/**
 * Period alignment: a task's execution interval laid on a fixed UTC grid, so every gateway (and every restart) cuts
 * time into the same periods and a period is a key a claim can name; the periods due by a time, counted; and where a
 * period's query starts, so its first range bucket is whole. Units up to hours count from the epoch, days from UTC
 * midnight, weeks from Monday 00:00 UTC, months and years on the UTC calendar from 1970. No I/O.
 */
import { DateTime } from 'luxon';
import { compileAggregators } from '../engine/aggregators/registry.js';
import { compileGroupBys } from '../engine/group-by/registry.js';
import { readZone } from '../engine/params.js';
import { queryFields, type MetricQuery } from '../model/query.js';
import { fixedLengthMs, plusUnits, resolveZone, type Duration } from '../model/time-units.js';

export interface Period {
  readonly startMs: number;
  /** Exclusive. */
  readonly endMs: number;
}

const DAY_MS = 86_400_000;
/** 1970-01-05, the first Monday after the epoch. */
const FIRST_MONDAY_MS = 4 * DAY_MS;

const UTC = resolveZone('UTC')!;

/** The period that holds `ms`. */
export function periodAt(ms: number, interval: Duration): Period {
  const length = fixedLengthMs(interval, UTC);
  if (length !== undefined) {
    const origin = interval.unit === 'WEEKS' ? FIRST_MONDAY_MS : 0;
    const startMs = origin + Math.floor((ms - origin) / length) * length;
    return { startMs, endMs: startMs + length };
  }
  const at = DateTime.fromMillis(ms, { zone: 'utc' });
  const months = interval.unit === 'YEARS' ? 12 * interval.value : interval.value;
  const index = Math.floor(((at.year - 1970) * 12 + at.month - 1) / months) * months;
  const start = DateTime.utc(1970, 1, 1).plus({ months: index });
  return { startMs: start.toMillis(), endMs: start.plus({ months }).toMillis() };
}

/** The period right after `period`. */
export function nextPeriod(period: Period, interval: Duration): Period {
  return periodAt(period.endMs, interval);
}

/** The key of a period in service_index: its start, zero-padded so text order is time order (from 1970 on). */
export function periodKey(period: Period): string {
  return period.startMs >= 0
    ? String(period.startMs).padStart(16, '0')
    : `-${String(-period.startMs).padStart(16, '0')}`;
}

/** Periods from the one at `fromMs` that end at or before `untilMs`, counted up to `cap`. */
export function countDue(fromMs: number, interval: Duration, untilMs: number, cap: number): number {
  const first = periodAt(fromMs, interval);
  if (first.endMs > untilMs) return 0;
  const length = first.endMs - first.startMs;
  if (interval.unit !== 'MONTHS' && interval.unit !== 'YEARS')
    return Math.min(cap, Math.floor((untilMs - first.startMs) / length));
  let count = 0;
  for (let period = first; period.endMs <= untilMs && count < cap; period = nextPeriod(period, interval)) count++;
  return count;
}

/** The start of the earliest of the latest `count` periods that end at or before `untilMs`. */
export function latestPeriods(untilMs: number, interval: Duration, count: number): number {
  let start = periodAt(untilMs, interval).startMs;
  for (let i = 0; i < count; i++) start = periodAt(start - 1, interval).startMs;
  return start;
}

export function sameDuration(a: Duration, b: Duration): boolean {
  return a.value === b.value && a.unit === b.unit;
}

/**
 * Where a period's query starts: the start of the range bucket that holds the period's start, for each range
 * aggregator of the query, so a sampling longer than the interval re-computes its open bucket whole (its point is
 * written again, more complete). The period's own start for samplings that divide it.
 */
export function firstBucketStart(query: MetricQuery, period: Period): number {
  const zone = readZone(query.timeZone, queryFields(query).param('time_zone'));
  const groupBys = compileGroupBys(query.groupBy, period.startMs);
  const compiled = compileAggregators(query.aggregators, {
    metric: query.metric,
    startMs: period.startMs,
    endMs: period.endMs - 1,
    nowMs: period.endMs,
    zone,
    tagGroupBy: groupBys.tags ?? [],
    limits: {
      store: 'the roll-up planner',
      maxMetricBytes: Number.MAX_SAFE_INTEGER,
      maxRowKeyBytes: Number.MAX_SAFE_INTEGER,
    },
  });
  let start = period.startMs;
  for (const { stage } of compiled) {
    const range = stage.range;
    if (range === undefined) continue;
    const length = fixedLengthMs(range.sampling, range.zone);
    let bucket: number;
    if (length !== undefined) bucket = range.anchorMs + Math.floor((period.startMs - range.anchorMs) / length) * length;
    else {
      bucket = range.anchorMs;
      for (
        let next = plusUnits(bucket, range.sampling.unit, range.sampling.value, range.zone);
        next <= period.startMs;
        next = plusUnits(next, range.sampling.unit, range.sampling.value, range.zone)
      )
        bucket = next;
    }
    start = Math.min(start, bucket);
  }
  return start;
}
