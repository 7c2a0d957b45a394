/**
 * Period alignment: the UTC grid every gateway cuts a task's time into (hours from the epoch, weeks from Monday,
 * months on the calendar), the periods due by a time, and where a period's query starts.
 */
import { describe, expect, it } from 'vitest';
import type { MetricQuery } from '../model/query.js';
import { countDue, firstBucketStart, latestPeriods, periodAt, periodKey } from './periods.js';

const HOUR = 3_600_000;
/** Monday 2026-01-05 00:00 UTC. */
const D0 = Date.UTC(2026, 0, 5);
const hours = { value: 1, unit: 'HOURS' } as const;

describe('periods', () => {
  it('lays hours from the epoch, weeks from Monday and months on the UTC calendar', () => {
    expect(periodAt(D0 + 90 * 60_000, hours)).toEqual({ startMs: D0 + HOUR, endMs: D0 + 2 * HOUR });
    expect(periodAt(Date.UTC(2026, 0, 11, 23), { value: 1, unit: 'WEEKS' })).toEqual({
      startMs: D0,
      endMs: Date.UTC(2026, 0, 12),
    });
    expect(periodAt(Date.UTC(2026, 1, 15), { value: 3, unit: 'MONTHS' })).toEqual({
      startMs: Date.UTC(2026, 0, 1),
      endMs: Date.UTC(2026, 3, 1),
    });
  });

  it('counts the periods that ended by a time, up to a cap, and finds where the latest n begin', () => {
    expect(countDue(D0, hours, D0 + 5 * HOUR + 1, 100)).toBe(5);
    expect(countDue(D0, hours, D0 + 5 * HOUR + 1, 3)).toBe(3);
    expect(countDue(D0 + 30 * 60_000, hours, D0 + HOUR - 1, 100)).toBe(0);
    expect(countDue(Date.UTC(2026, 0, 1), { value: 1, unit: 'MONTHS' }, Date.UTC(2026, 3, 1), 100)).toBe(3);
    expect(latestPeriods(D0 + 5.5 * HOUR, hours, 3)).toBe(D0 + 2 * HOUR);
  });

  it('keys a period by its start, padded so that text order is time order', () => {
    expect(periodKey({ startMs: 5, endMs: 6 })).toBe('0000000000000005');
    expect(periodKey({ startMs: -5, endMs: -4 })).toBe('-0000000000000005');
  });

  it("starts a period's query at the range bucket that holds the period's start", () => {
    const period = { startMs: D0 + 5 * HOUR, endMs: D0 + 6 * HOUR };
    const query = (params: Record<string, unknown>): MetricQuery => ({
      metric: 'cpu',
      range: { startMs: 0, endMs: 0 },
      tags: [],
      aggregators: [
        { name: 'sum', params },
        { name: 'save_as', params: { metric_name: 'cpu.1h' } },
      ],
      groupBy: [],
      timeZone: 'UTC',
      order: 'asc',
      excludeTags: false,
    });
    // A day's bucket, aligned to midnight: re-computed whole each hour.
    expect(firstBucketStart(query({ sampling: { value: 1, unit: 'days' } }), period)).toBe(D0);
    expect(firstBucketStart(query({ sampling: { value: 10, unit: 'minutes' } }), period)).toBe(D0 + 5 * HOUR);
    expect(firstBucketStart(query({ sampling: { value: 1, unit: 'days' }, align_sampling: false }), period)).toBe(
      D0 + 5 * HOUR,
    );
  });
});
