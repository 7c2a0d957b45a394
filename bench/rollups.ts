/**
 * A 90-day dashboard panel from raw data and from a roll-up (issue #20): `--series` series (20) of 10 s doubles over
 * `--days` days (90) ending 2026-01-01, deterministic; a roll-up task (hourly avg, sum and count, grouped by host) run by the
 * scheduler over every period on a fake clock; then, alternately, median of `--runs` (5) after a warm-up:
 * - raw: the panel's query, 1-hour averages of the raw points grouped by host, through the engine;
 * - roll-up: the roll-up's metric read as it is (one point per host and hour), grouped by host;
 * - useRollups: the panel's query planned with `useRollups` (src/rollups/query-through-rollups.ts), which answers the averages
 *   from the task's hourly sum and count roll-ups (two reads, divided).
 * The three answers are checked equal. Reported per store: latency, points read, and the ratios. No results cache.
 *
 *   npm run bench:rollups [-- --days 90 --series 20 --runs 5 --store embedded|cassandra|both]
 *   (KAIROGRAPH_CASSANDRA=127.0.0.1:<port> reuses a running node; otherwise one is booted for --store cassandra/both)
 */
import cassandra from 'cassandra-driver';
import { pino } from 'pino';
import { loadConfig } from '../src/gateway/config.js';
import type { MetricQuery } from '../src/model/query.js';
import { parseRollupTask } from '../src/rollups/rollup-task.js';
import { queryThroughRollups } from '../src/rollups/query-through-rollups.js';
import { RequestScopes, scopeSettings } from '../src/app/request-scope.js';
import { RollupService } from '../src/rollups/rollup-service.js';
import { rollupSettings } from '../src/rollups/rollup-settings.js';
import { taskStoreOf } from '../src/rollups/task-store.js';
import { KairosdbSource } from '../src/sources/kairosdb/kairosdb-source.js';
import { Sources } from '../src/sources/sources.js';
import { CassandraStore } from '../src/store/cassandra/cassandra-store.js';
import { EmbeddedStore } from '../src/store/embedded/embedded-store.js';
import type { Store } from '../src/store/store.js';
import { emptyKeyspace } from '../test/integration/cassandra-stores.js';
import { startCassandra } from '../test/support/cassandra-server.js';
import { FakeClock } from '../test/support/fake-clock.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const DAYS = Number(args.get('days') ?? 90);
const SERIES = Number(args.get('series') ?? 20);
const RUNS = Number(args.get('runs') ?? 5);
const STORES = (args.get('store') ?? 'both') === 'both' ? ['embedded', 'cassandra'] : [args.get('store')!];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STEP = 10_000;
const END = Date.UTC(2026, 0, 1);
const START = END - DAYS * DAY;
const config = loadConfig({
  SEED_DEMO: 'false',
  QUERY_TIMEOUT_MS: '3600000',
  MAX_POINTS_READ: '1000000000000',
  MAX_REQUEST_POINTS_READ: '1000000000000',
  LOG_LEVEL: 'silent',
});
const log = pino({ level: 'silent' });

console.log(
  `npm run bench:rollups -- --days ${DAYS} --series ${SERIES} --runs ${RUNS} --store ${args.get('store') ?? 'both'}`,
);
console.log(
  `dataset: ${SERIES} series of 10 s doubles over ${DAYS} days (${((SERIES * DAYS * DAY) / STEP).toLocaleString('en')} points), hourly roll-ups by host of avg, sum and count`,
);

/** Writes the dataset a day of every series at a time. */
async function fill(store: Store): Promise<void> {
  const perDay = DAY / STEP;
  for (let day = 0; day < DAYS; day++) {
    await store.write({
      series: Array.from({ length: SERIES }, (_, s) => ({
        metric: 'bench.cpu',
        tags: { host: `host-${String(s).padStart(2, '0')}` },
        type: 'double' as const,
        ttlSeconds: 0,
        timestamps: Array.from({ length: perDay }, (_, i) => START + day * DAY + i * STEP),
        values: Array.from({ length: perDay }, (_, i) => (((day * perDay + i) * 7919 + s * 104_729) % 10_007) / 100),
      })),
    });
  }
}

const hourly = (saveAs: string, aggregator: string) => ({
  save_as: saveAs,
  query: {
    start_relative: { value: 1, unit: 'hours' },
    metrics: [
      {
        name: 'bench.cpu',
        group_by: [{ name: 'tag', tags: ['host'] }],
        aggregators: [{ name: aggregator, sampling: { value: 1, unit: 'hours' } }],
      },
    ],
  },
});
const TASK = JSON.stringify({
  id: 'bench-hourly',
  name: 'bench hourly',
  execution_interval: { value: 1, unit: 'hours' },
  rollups: [hourly('bench.cpu.1h', 'avg'), hourly('bench.cpu.1h.sum', 'sum'), hourly('bench.cpu.1h.count', 'count')],
});

/** Runs the task over every period of the dataset, as the gateway's scheduler would have hour by hour. */
async function rollUp(store: Store): Promise<number> {
  const sources = new Sources(new KairosdbSource('kairosdb', store));
  await taskStoreOf(sources)!.put(parseRollupTask(TASK, { limits: store.limits, nowMs: START }));
  const clock = new FakeClock(START);
  const rollups = new RollupService({
    sources,
    scopes: new RequestScopes({ sources, settings: scopeSettings(config), log }),
    log,
    clock,
    owner: 'bench',
    settings: {
      ...rollupSettings(config),
      pollMs: 60_000,
      maxCatchUpPeriods: DAYS * 24 + 1,
      leaseMs: 3_600_000,
      delayMs: 0,
    },
  });
  await rollups.tick();
  clock.t = END;
  const started = performance.now();
  await rollups.tick();
  const status = rollups.statuses().find((s) => s.id === 'bench-hourly')!;
  if (status.pendingPeriods !== 0 || status.failures !== 0)
    throw new Error(`the roll-up did not complete: ${JSON.stringify(status)}`);
  return performance.now() - started;
}

const base = {
  range: { startMs: START, endMs: END - 1 },
  groupBy: [{ name: 'tag', params: { tags: ['host'] } }],
  timeZone: 'UTC',
  order: 'asc' as const,
  excludeTags: false,
};
const RAW: MetricQuery = {
  ...base,
  metric: 'bench.cpu',
  tags: [],
  aggregators: [{ name: 'avg', params: { sampling: { value: 1, unit: 'hours' } } }],
};
const ROLLED: MetricQuery = {
  ...base,
  metric: 'bench.cpu.1h',
  tags: [{ tag: 'saved_from', in: ['bench.cpu'] }],
  aggregators: [],
};

/**
 * One panel: its query as it is, or planned with `useRollups` by the roll-up service of a gateway that does not run
 * the task (its statuses read from the store, as on a gateway with ROLLUPS=off).
 */
async function measure(store: Store, query: MetricQuery, useRollups = false) {
  const sources = new Sources(new KairosdbSource('kairosdb', store));
  const scopes = new RequestScopes({ sources, settings: scopeSettings(config), log });
  const tasks = new RollupService({ sources, scopes, log, settings: rollupSettings(config) });
  const ctx = scopes.open();
  try {
    const started = performance.now();
    const output = await (useRollups ? queryThroughRollups(ctx, tasks, query, 'panel') : ctx.runQuery(query, 'panel'));
    const ms = performance.now() - started;
    if (useRollups && ctx.queries.some((q) => q.rewrite?.metric === undefined))
      throw new Error(`useRollups read raw data: ${JSON.stringify(ctx.queries.map((q) => q.rewrite))}`);
    const answer = output.groups.map((g) => [...g.points.values].join(','));
    return { ms, pointsRead: ctx.queries.reduce((n, q) => n + q.stats.pointsRead, 0), answer };
  } finally {
    ctx.dispose();
  }
}

async function openStore(kind: string): Promise<Store> {
  if (kind === 'embedded') return EmbeddedStore.open({ path: tempDir('kairograph-bench-rollups-') });
  const node = await startCassandra({ heap: '1g' });
  const admin = new cassandra.Client({
    contactPoints: [node.contactPoint],
    localDataCenter: node.localDataCenter,
    protocolOptions: { maxVersion: 4 },
  });
  await admin.connect();
  await emptyKeyspace(admin, 'kg_bench_rollups');
  await admin.shutdown();
  const store = await CassandraStore.open({
    contactPoints: [node.contactPoint],
    localDataCenter: node.localDataCenter,
    keyspace: 'kg_bench_rollups',
    writeConsistency: 'ONE',
  });
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await node.stop();
  };
  return store;
}

const rows: string[] = [];
for (const kind of STORES) {
  const store = await openStore(kind);
  try {
    const filled = performance.now();
    await fill(store);
    const fillMs = performance.now() - filled;
    const rollupMs = await rollUp(store);
    console.log(
      `${kind}: filled in ${(fillMs / 1000).toFixed(1)} s, rolled up ${DAYS * 24} periods in ${(rollupMs / 1000).toFixed(1)} s`,
    );
    const panels = [() => measure(store, RAW), () => measure(store, ROLLED), () => measure(store, RAW, true)];
    const ms: number[][] = panels.map(() => []);
    const read: number[] = panels.map(() => 0);
    // Warm-up, then alternately.
    const answers: string[] = [];
    for (const panel of panels) answers.push(JSON.stringify((await panel()).answer));
    if (answers.some((answer) => answer !== answers[0]))
      throw new Error(`${kind}: the roll-ups do not answer what the raw data does`);
    for (let run = 0; run < RUNS; run++) {
      for (const [i, panel] of panels.entries()) {
        const m = await panel();
        ms[i]!.push(m.ms);
        read[i] = m.pointsRead;
      }
    }
    const [r, u, p] = ms.map(median) as [number, number, number];
    const cell = (i: number, m: number) =>
      `${m.toFixed(1)} | ${read[i]!.toLocaleString('en')} | ${(r / m).toFixed(1)}x`;
    rows.push(`| ${kind} | ${r.toFixed(1)} | ${read[0]!.toLocaleString('en')} | ${cell(1, u)} | ${cell(2, p)} |`);
  } finally {
    await store.close();
  }
}
console.log(
  '\n| store | raw: median ms | raw: points read | avg roll-up: median ms | points read | speed-up | useRollups (sum / count): median ms | points read | speed-up |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const row of rows) console.log(row);
removeTempDirs();
