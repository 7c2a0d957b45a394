/**
 * KairosDB's status row as its status store writes it: Gson's field names and order, `errorMessage` only on failure,
 * and Java's `dd MMM yyyy KK:mm:ss a` (hours 0 to 11, so noon is 00 PM).
 */
import { describe, expect, it } from 'vitest';
import { kairosDate, kairosStatusJson } from './kairos-status-json.js';

describe("KairosDB's status JSON", () => {
  it("writes dates as Java's SimpleDateFormat does, in UTC", () => {
    expect(kairosDate(Date.UTC(2026, 0, 6, 0, 1, 1))).toBe('06 Jan 2026 00:01:01 AM');
    expect(kairosDate(Date.UTC(2026, 10, 24, 12, 4, 7))).toBe('24 Nov 2026 00:04:07 PM');
    expect(kairosDate(Date.UTC(2026, 11, 31, 23, 59, 59))).toBe('31 Dec 2026 11:59:59 PM');
  });

  it('writes a run as Gson writes RollupTaskStatus, the error only for a failed query', () => {
    const finishedMs = Date.UTC(2026, 0, 6, 13, 0, 2);
    const record = {
      periodStartMs: Date.UTC(2026, 0, 6, 12),
      periodEndMs: Date.UTC(2026, 0, 6, 13),
      startedMs: finishedMs - 2000,
      finishedMs,
      durationMs: 2000,
      pointsWritten: 4,
      error: 'the disk is full',
      owner: 'g1',
      queries: [
        { metric: 'cpu', pointsWritten: 4, durationMs: 1499.6 },
        { metric: 'mem', pointsWritten: 0, durationMs: 0.4, error: 'the disk is full' },
      ],
    };
    expect(kairosStatusJson(record, undefined, 'host-1')).toBe(
      JSON.stringify({
        statuses: [
          {
            metricName: 'cpu',
            lastExecuted: '06 Jan 2026 01:00:02 PM',
            dataPointCount: 4,
            executionLength: 1500,
            lastExecutionTime: finishedMs,
          },
          {
            metricName: 'mem',
            lastExecuted: '06 Jan 2026 01:00:02 PM',
            dataPointCount: 0,
            executionLength: 0,
            errorMessage: 'the disk is full',
            lastExecutionTime: finishedMs,
          },
        ],
        executingHost: 'host-1',
        nextScheduled: 'Never',
      }),
    );
    expect(JSON.parse(kairosStatusJson(record, Date.UTC(2026, 0, 6, 14, 1), 'h')).nextScheduled).toBe(
      '06 Jan 2026 02:01:00 PM',
    );
  });
});
