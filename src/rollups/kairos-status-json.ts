/**
 * KairosDB's status of a task's last run, as its own status store writes it to service_index (`_Rollups`/`Status`),
 * so KairosDB's status endpoint reads what a gateway ran: `RollupTaskStatus` through plain Gson (Java field names,
 * `errorMessage` only on failure) with times in Java's `dd MMM yyyy KK:mm:ss a`. Kairograph writes them in UTC where
 * KairosDB uses its JVM's zone. No I/O.
 */
import type { RunRecord } from './run-period.js';

/** The status row of a run; `nextMs` is when the task's next period is due (`Never` when it is not known). */
export function kairosStatusJson(record: RunRecord, nextMs: number | undefined, host: string): string {
  const { finishedMs } = record;
  return JSON.stringify({
    statuses: record.queries.map((query) => ({
      metricName: query.metric,
      lastExecuted: kairosDate(finishedMs),
      dataPointCount: query.pointsWritten,
      executionLength: Math.round(query.durationMs),
      ...(query.error !== undefined ? { errorMessage: query.error } : {}),
      lastExecutionTime: finishedMs,
    })),
    executingHost: host,
    nextScheduled: nextMs === undefined ? 'Never' : kairosDate(nextMs),
  });
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Java's SimpleDateFormat("dd MMM yyyy KK:mm:ss a"), in UTC: `24 Nov 2026 03:04:07 AM`. */
export function kairosDate(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  const hours = d.getUTCHours();
  return `${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${two(hours % 12)}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${hours < 12 ? 'AM' : 'PM'}`;
}
