/**
 * The demo dataset is deterministic (same clock, same data) and has the metrics the README and GraphiQL name.
 */
import { afterAll, expect, it } from 'vitest';
import { partitionsOf, scanAll } from '../../test/store-conformance.js';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { seedDemoData } from './seed.js';

afterAll(removeTempDirs);

async function seeded(endMs: number) {
  const store = await EmbeddedStore.open({ path: tempDir() });
  const summary = await seedDemoData(store, { endMs, days: 0.25 });
  return { store, summary };
}

it('seeds the same points for the same clock, ending at the last 10-second mark before it', async () => {
  const end = Date.UTC(2026, 10, 21, 12, 0, 7);
  const a = await seeded(end);
  const b = await seeded(end);
  // 0.25 days of 10 s steps = 2160 points for 20 numeric series, one point in 2880 for the 6 string series.
  expect(a.summary).toEqual({ series: 26, points: 20 * 2160 + 6 });
  expect(await a.store.metricNames()).toEqual([
    'app.deploy.version',
    'http.request.latency',
    'http.requests',
    'system.cpu.usage',
    'system.memory.used',
  ]);
  for (const metric of await a.store.metricNames()) {
    const [pa, pb] = await Promise.all([partitionsOf(a.store, metric, 0, end), partitionsOf(b.store, metric, 0, end)]);
    expect(pa).toEqual(pb);
    for (const [i, key] of pa.entries()) {
      const [sa, sb] = await Promise.all([scanAll(a.store, key, 0, end), scanAll(b.store, pb[i]!, 0, end)]);
      expect(sa).toEqual(sb);
      expect(sa.at(-1)!.t).toBeLessThanOrEqual(Date.UTC(2026, 10, 21, 12, 0, 0));
    }
  }
  const [cpu] = await partitionsOf(a.store, 'system.cpu.usage', 0, end);
  const values = (await scanAll(a.store, cpu!, 0, end)).map((p) => p.v as number);
  expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
  expect(Math.max(...values)).toBeLessThanOrEqual(100);
  await Promise.all([a.store.close(), b.store.close()]);
});
