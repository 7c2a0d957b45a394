/**
 * The demo keeps flowing: on a fake clock, the README's first query has points right after the first start, after
 * minutes of running, and after a restart an hour later (the gap is filled); a store holding other data is left alone.
 */
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { startGateway, type TestGateway } from '../../test/support/gateway.js';
import { removeTempDirs, tempDir } from '../../test/support/temp-dir.js';
import { EmbeddedStore } from '../store/embedded/embedded-store.js';
import { keepDemoFlowing } from './demo-flow.js';

afterAll(removeTempDirs);
afterEach(() => void vi.useRealTimers());

/** The README's first GraphQL block, as a new user pastes it into GraphiQL. */
const README_QUERY = /```graphql\n([\s\S]*?)```/.exec(
  readFileSync(new URL('../../README.md', import.meta.url), 'utf8'),
)![1]!;

async function readmeCpuPoints(gw: TestGateway): Promise<number[]> {
  const { status, body } = await gw.graphql(README_QUERY);
  expect(status).toBe(200);
  const cpu = (body.data as { cpu: { host: string; points: { epochMs: number }[] }[] }).cpu;
  expect(cpu.map((s) => s.host)).toEqual(['web-01', 'web-02']);
  return cpu[0]!.points.map((p) => p.epochMs);
}

async function start(path: string, lines: string[]) {
  const store = await EmbeddedStore.open({ path });
  const gw = await startGateway(store);
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const flow = await keepDemoFlowing(gw.gateway.shared.sources.primary, { log, days: 0.05 });
  return {
    store,
    gw,
    flow,
    close: async () => {
      flow?.stop();
      await gw.close();
      await store.close();
    },
  };
}

it('answers the README query with fresh points after start, while running, and after a restart an hour later', async () => {
  const t0 = Date.UTC(2026, 2, 1, 9, 0, 3);
  vi.useFakeTimers({ toFake: ['Date'], now: t0 });
  const dir = tempDir();
  const lines: string[] = [];
  const first = await start(dir, lines);
  expect(first.flow).toBeDefined();
  let times = await readmeCpuPoints(first.gw);
  expect(times.at(-1)).toBe(Date.UTC(2026, 2, 1, 9, 0, 0));
  expect(times).toHaveLength(12);

  // Five minutes of running: every tick adds the steps since the last.
  for (let i = 0; i < 30; i++) {
    vi.setSystemTime(Date.now() + 10_000);
    await first.flow!.tick();
  }
  times = await readmeCpuPoints(first.gw);
  expect(times.at(-1)).toBe(Date.UTC(2026, 2, 1, 9, 5, 0));
  expect(times).toHaveLength(12);
  await first.close();

  // Stopped for an hour, then started again: the gap is filled before the first request.
  vi.setSystemTime(Date.UTC(2026, 2, 1, 10, 5, 4));
  const second = await start(dir, lines);
  times = await readmeCpuPoints(second.gw);
  expect(times.at(-1)).toBe(Date.UTC(2026, 2, 1, 10, 5, 0));
  expect(times).toHaveLength(12);
  // Every step of the last 65 minutes is there, once.
  const { body } = await second.gw.graphql(
    '{ series(metric: "system.cpu.usage", from: "now-65m", where: [{ tag: "host", eq: "web-03" }], aggregators: [{ count: { sampling: { value: 65, unit: MINUTES }, alignSampling: false } }]) { points { value } } }',
  );
  expect(body.data).toEqual({ series: [{ points: [{ value: 390 }] }] });
  await second.close();

  const logged = lines.map((line) => JSON.parse(line) as { msg: string; gapMs: number | null; points: number });
  expect(logged.map((l) => l.msg)).toEqual([
    'demo data filled up to now; a point every 10 s per series while the gateway runs (SEED_DEMO=false turns this off)',
    'demo data filled up to now; a point every 10 s per series while the gateway runs (SEED_DEMO=false turns this off)',
  ]);
  expect(logged[0]!.gapMs).toBeNull();
  expect(logged[1]!.gapMs).toBe(3_604_000);
  // 360 steps for 20 numeric series, none on an 8-hour mark for the 6 string series.
  expect(logged[1]!.points).toBe(20 * 360);
});

it('leaves a store that holds other data alone', async () => {
  const store = await EmbeddedStore.open({ path: tempDir() });
  await store.write({
    series: [
      { metric: 'sys.load', tags: { host: 'a' }, type: 'double', ttlSeconds: 0, timestamps: [Date.now()], values: [1] },
    ],
  });
  const gw = await startGateway(store);
  const flow = await keepDemoFlowing(gw.gateway.shared.sources.primary, { log: pino({ level: 'silent' }), days: 0.01 });
  expect(flow).toBeUndefined();
  expect(await store.metricNames()).toEqual(['sys.load']);
  await gw.close();
  await store.close();
});
