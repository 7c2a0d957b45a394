/**
 * Roll-up tasks on the gateway's /metrics, labelled by task id: tasks are few (each is a configured job, not a
 * client's value), so the label stays bounded. A deleted task's series go at the next scrape.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RollupService } from './rollup-service.js';
import type { TaskCounters, TaskStatus } from './task-status.js';

/** The tasks this gateway's scheduler knows, read at each scrape. */
export function registerRollupMetrics(registry: Registry, rollups: Pick<RollupService, 'statuses' | 'counters'>): void {
  const perTask = (name: string, help: string, value: (status: TaskStatus) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: ['task'],
      registers: [registry],
      collect() {
        this.reset();
        for (const status of rollups.statuses()) {
          const v = value(status);
          if (v !== undefined) this.set({ task: status.id }, v);
        }
      },
    });
  const counted = (
    name: string,
    help: string,
    value: (counters: TaskCounters) => number,
    extra?: Record<string, string>,
  ) =>
    new Counter({
      name,
      help,
      labelNames: ['task', ...Object.keys(extra ?? {})],
      registers: [registry],
      collect() {
        this.reset();
        for (const [task, counters] of rollups.counters()) this.inc({ task, ...extra }, value(counters));
      },
    });
  new Gauge({
    name: 'kairograph_rollup_tasks',
    help: 'Roll-up tasks this gateway knows, by whether they can run (invalid: their JSON does not parse here)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      const statuses = rollups.statuses();
      this.set({ state: 'valid' }, statuses.filter((s) => s.error === undefined).length);
      this.set({ state: 'invalid' }, statuses.filter((s) => s.error !== undefined).length);
    },
  });
  perTask(
    'kairograph_rollup_pending_periods',
    'Periods of a roll-up task that ended (and ROLLUPS_DELAY_MS passed) but are not rolled up yet',
    (s) => (s.error === undefined ? s.pendingPeriods : undefined),
  );
  perTask(
    'kairograph_rollup_consecutive_failures',
    'Failed runs in a row of the first pending period of a roll-up task',
    (s) => s.failures,
  );
  perTask(
    'kairograph_rollup_last_success_timestamp_seconds',
    'End of the latest period a roll-up task rolled up successfully here',
    (s) => (s.lastSuccess ? s.lastSuccess.periodEndMs / 1000 : undefined),
  );
  perTask('kairograph_rollup_last_run_duration_seconds', "Duration of a roll-up task's latest run here", (s) =>
    s.lastRun ? s.lastRun.durationMs / 1000 : undefined,
  );
  counted(
    'kairograph_rollup_runs_total',
    'Runs of roll-up task periods by this gateway, failed ones included',
    (c) => c.runs,
  );
  counted(
    'kairograph_rollup_failed_runs_total',
    'Failed runs of roll-up task periods by this gateway (each is retried)',
    (c) => c.failures,
  );
  counted(
    'kairograph_rollup_points_written_total',
    'Points roll-up runs of this gateway wrote',
    (c) => c.pointsWritten,
  );
  counted(
    'kairograph_rollup_skipped_periods_total',
    'Periods skipped because catch-up after downtime passed ROLLUPS_MAX_CATCH_UP_PERIODS',
    (c) => c.periodsSkipped,
  );
}
