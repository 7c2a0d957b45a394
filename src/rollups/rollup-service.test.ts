/**
 * The roll-up service the gateway builds once: its settings read from the configuration; a task changed through it
 * reaching its own scheduler at the next tick, without waiting for a poll; and a gateway that runs no task (ROLLUPS=
 * off) answering the very status the running gateway recorded.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import {
  closeRollupStores,
  config,
  D0,
  HOUR,
  log,
  SETTINGS,
  storeWithData,
  TASK,
} from '../../test/support/rollup-fixtures.js';
import { removeTempDirs } from '../../test/support/temp-dir.js';
import { RequestScopes, scopeSettings } from '../app/request-scope.js';
import { loadConfig } from '../gateway/config.js';
import { KairosdbSource } from '../sources/kairosdb/kairosdb-source.js';
import { Sources } from '../sources/sources.js';
import type { Store } from '../store/store.js';
import type { Clock } from './rollup-scheduler.js';
import { RollupService } from './rollup-service.js';
import { rollupSettings } from './rollup-settings.js';

afterEach(closeRollupStores);
afterAll(removeTempDirs);

/** A gateway's roll-up service over `store`, and a request scope of client `alice` at the clock's time. */
function gatewayOn(store: Store, clock: Clock, owner: string) {
  const sources = new Sources(new KairosdbSource('kairosdb', store));
  const scopes = new RequestScopes({ sources, settings: scopeSettings(config), log });
  const rollups = new RollupService({ sources, scopes, log, clock, owner, settings: SETTINGS });
  return { rollups, request: () => scopes.open({ nowMs: clock.now(), client: 'alice' }) };
}

describe('roll-up service', () => {
  it('takes its settings from the configuration', () => {
    const settings = rollupSettings(
      loadConfig({
        SEED_DEMO: 'false',
        ROLLUPS_POLL_MS: '1000',
        ROLLUPS_MAX_CATCH_UP_PERIODS: '7',
        ROLLUPS_LEASE_MS: '2000',
        ROLLUPS_DELAY_MS: '3',
        ROLLUPS_MIN_INTERVAL_MS: '5000',
        QUOTA_ROLLUP_TASKS: '4',
      }),
    );
    expect(settings).toEqual({
      pollMs: 1000,
      maxCatchUpPeriods: 7,
      leaseMs: 2000,
      delayMs: 3,
      minIntervalMs: 5000,
      maxTasksPerClient: 4,
    });
  });

  it('has its scheduler read a task created, changed or deleted through it at the next tick, not the next poll', async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const { rollups, request } = gatewayOn(await storeWithData(1), clock, 'g1');
    const ctx = request();
    try {
      await rollups.tick();
      expect(rollups.statuses()).toEqual([]);
      const created = await rollups.create(ctx, JSON.stringify({ id: 'task-1', ...TASK }));
      await rollups.tick();
      expect(rollups.statuses()).toMatchObject([
        { id: 'task-1', name: 'cpu hourly', completedThroughMs: D0 + HOUR, pendingPeriods: 0 },
      ]);
      expect(rollups.counters().get('task-1')).toEqual({ runs: 1, failures: 0, pointsWritten: 2, periodsSkipped: 0 });

      await rollups.update(ctx, created.id, JSON.stringify({ ...TASK, name: 'renamed' }));
      await rollups.tick();
      expect(rollups.statuses().map((s) => [s.id, s.name])).toEqual([['task-1', 'renamed']]);
      expect(await rollups.update(ctx, 'nothing', JSON.stringify(TASK))).toBeUndefined();

      expect(await rollups.delete(ctx, 'task-1')).toBe(true);
      await rollups.tick();
      expect(rollups.statuses()).toEqual([]);
      expect(await rollups.delete(ctx, 'task-1')).toBe(false);
    } finally {
      ctx.dispose();
    }
  });

  it('answers, on a gateway that runs no task, the status the gateway that runs it recorded', async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const store = await storeWithData(1);
    const running = gatewayOn(store, clock, 'g1');
    const idle = gatewayOn(store, clock, 'g2');
    const ctx = running.request();
    await running.rollups.create(ctx, JSON.stringify({ id: 'task-1', ...TASK }));
    ctx.dispose();
    await running.rollups.tick();
    clock.t += 2 * HOUR;
    await running.rollups.tick();

    const asked = idle.request();
    try {
      const stored = (await idle.rollups.get(asked, 'task-1'))!;
      const recorded = await idle.rollups.status(asked, stored);
      expect(idle.rollups.statuses()).toEqual([]);
      expect(recorded).toEqual(await running.rollups.status(asked, stored));
      expect(recorded).toMatchObject({
        completedThroughMs: D0 + 3 * HOUR,
        pendingPeriods: 0,
        failures: 0,
        lastSuccess: { periodStartMs: D0 + 2 * HOUR, pointsWritten: 2, owner: 'g1' },
      });
    } finally {
      asked.dispose();
    }
  });
});
