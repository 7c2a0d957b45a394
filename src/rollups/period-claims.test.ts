/**
 * Claims on periods through service_index on the embedded store, with a fake clock: two schedulers on one store run
 * each period once (counted writes); a claim the store fails backs off; old claims are pruned; a claim of a gateway
 * that died is taken over after its lease.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../test/support/fake-clock.js';
import {
  closeRollupStores,
  countingStore,
  createTask,
  D0,
  HOUR,
  rolled,
  SETTINGS,
  schedulerOn,
  storeWithData,
} from '../../test/support/rollup-fixtures.js';
import { delegatingStore } from '../../test/support/store-wrappers.js';
import { removeTempDirs } from '../../test/support/temp-dir.js';

afterEach(closeRollupStores);
afterAll(removeTempDirs);

describe('claims on roll-up periods', () => {
  it('runs each period once with two schedulers on one store, whichever asks first (counted writes)', async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const counted = countingStore(await storeWithData(1));
    await createTask(counted.store, clock);
    const one = schedulerOn(counted.store, clock, 'g1');
    const two = schedulerOn(counted.store, clock, 'g2');
    await Promise.all([one.tick(), two.tick()]);
    for (let hour = 2; hour <= 24; hour++) {
      clock.t = D0 + hour * HOUR + SETTINGS.delayMs;
      // The one that lost a claim looks again after a few seconds, when the other has completed the period.
      await Promise.all([one.tick(), two.tick()]);
      clock.t += 10_000;
      await Promise.all([two.tick(), one.tick()]);
    }
    // Two series (hosts a and b) per hour, each written once.
    const perHour = new Map<number, number>();
    for (const w of counted.writes.filter((w) => w.metric === 'cpu.hourly'))
      perHour.set(w.firstMs - (w.firstMs % HOUR), (perHour.get(w.firstMs - (w.firstMs % HOUR)) ?? 0) + 1);
    expect([...perHour]).toEqual(Array.from({ length: 24 }, (_, h) => [D0 + h * HOUR, 2]));
    const runs = [...one.counters().values()][0]!.runs + [...two.counters().values()][0]!.runs;
    expect(runs).toBe(24);
    expect(one.status('task-1')!.completedThroughMs).toBe(D0 + 24 * HOUR);
    expect(two.status('task-1')!.completedThroughMs).toBe(D0 + 24 * HOUR);
  });

  it('backs off when the store fails a claim, instead of trying again at once', async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const data = await storeWithData(1);
    await createTask(data, clock);
    let down = true;
    const index = data.serviceIndex;
    const flaky = delegatingStore(data, {
      serviceIndex: {
        maxKeyBytes: index.maxKeyBytes,
        serviceKeys: (...a) => index.serviceKeys(...a),
        keys: (...a) => index.keys(...a),
        value: (...a) => index.value(...a),
        set: (...a) => index.set(...a),
        delete: (...a) => index.delete(...a),
        complete: (...a) => index.complete(...a),
        claim: (...a) => (down ? Promise.reject(new Error('no host available')) : index.claim(...a)),
      },
    });
    const scheduler = schedulerOn(flaky, clock, 'g1');
    await scheduler.tick();
    expect(scheduler.status('task-1')).toMatchObject({ failures: 1, retryAtMs: clock.t + 5000, pendingPeriods: 1 });
    down = false;
    await scheduler.tick();
    expect(scheduler.status('task-1')).toMatchObject({ failures: 1, pendingPeriods: 1 });
    clock.t += 5000;
    await scheduler.tick();
    expect(scheduler.status('task-1')).toMatchObject({ failures: 0, pendingPeriods: 0, completedThroughMs: D0 + HOUR });
  });

  it('prunes the claims of periods older than catch-up goes back to, so the claims partition stays bounded', async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const store = await storeWithData(1);
    await createTask(store, clock);
    const scheduler = schedulerOn(store, clock, 'g1', { maxCatchUpPeriods: 3 });
    for (let hour = 1; hour <= 8; hour++) {
      clock.t = D0 + hour * HOUR + SETTINGS.delayMs;
      await scheduler.tick();
    }
    // The last tick pruned before D0 + 5 h (three periods before the one now due), then ran D0 + 7 h.
    const keys = await store.serviceIndex.keys('_kairograph_rollup_claims', 'task-1');
    expect(keys).toEqual([5, 6, 7].map((h) => `${String(D0 + h * HOUR).padStart(16, '0')} 1 hours`));
    expect(scheduler.status('task-1')).toMatchObject({ pendingPeriods: 0, completedThroughMs: D0 + 8 * HOUR });
  });

  it("takes over a period whose claim a dead gateway holds once the claim's lease expired", async () => {
    const clock = new FakeClock(D0 + HOUR + SETTINGS.delayMs);
    const counted = countingStore(await storeWithData(1));
    await createTask(counted.store, clock);
    const key = `${String(D0).padStart(16, '0')} 1 hours`;
    await counted.store.serviceIndex.claim(
      '_kairograph_rollup_claims',
      'task-1',
      key,
      'dead',
      clock.t,
      clock.t + SETTINGS.leaseMs,
    );
    const scheduler = schedulerOn(counted.store, clock, 'g1');
    await scheduler.tick();
    expect(scheduler.status('task-1')).toMatchObject({
      heldBy: { owner: 'dead', untilMs: clock.t + SETTINGS.leaseMs },
      pendingPeriods: 1,
    });
    expect(rolled(counted.writes)).toEqual([]);
    clock.t += SETTINGS.leaseMs + 1;
    await scheduler.tick();
    expect(rolled(counted.writes)[0]).toBe(D0);
    expect(scheduler.status('task-1')!.heldBy).toBeUndefined();
  });
});
