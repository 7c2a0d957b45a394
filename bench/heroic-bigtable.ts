/**
 * Heroic's Bigtable rows through a heroic source on the bigtable store, against Google's emulator (booted here, or
 * KAIROGRAPH_BIGTABLE=host:port with KAIROGRAPH_BIGTABLE_WRITER):
 * - read: `--series` series × `--points` points at 10 s (across a 2^32 ms period boundary), filled through the client;
 *   every series' hourly average, grouped by host, through executeQuery (the engine every front end uses), against the
 *   floor: the same rows read by the same client with the same filter, `--concurrency` rows at a time, counting cells.
 *   Alternately, median of `--runs` after a warm-up; the issue's target is a ratio <= 1.3.
 * - copy: the same points copied by copySeries (what `npm run copy` runs) into KairosDB's layout on the embedded store,
 *   or with `--to cassandra` on a Cassandra the benchmark boots, checked by its own read-back of both sides.
 * - series discovery: `--discovery` series counts (comma-separated) × 2 periods of one-cell rows, and the time of one
 *   catalogue pass over them (the key scan with values stripped, each key decoded), in a table of its own each.
 * `--only copy` fills and copies, nothing else.
 *
 *   npm run bench:heroic-bigtable [-- --series 20 --points 100000 --runs 3 --discovery 10000,100000 --only copy
 *                                     --to cassandra]
 */
import { join } from 'node:path';
import { copySeries } from '../src/copy/copy.js';
import { catalogued, hourlyAverageBy } from './source-query.js';
import { KairosdbSource } from '../src/sources/kairosdb/kairosdb-source.js';
import { EmbeddedStore } from '../src/store/embedded/embedded-store.js';
import { CassandraStore } from '../src/store/cassandra/cassandra-store.js';
import type { Store } from '../src/store/store.js';
import { startCassandra } from '../test/support/cassandra-server.js';
import { encodeBigtableKey, bigtableQualifier, bigtableValue } from '../src/sources/heroic/bigtable-key.js';
import { BigtableTable } from '../src/sources/heroic/bigtable-table.js';
import { heroicKeyDecoder } from '../src/sources/heroic/heroic-source.js';
import { openHeroicBigtableSource } from '../src/sources/heroic/open-heroic-bigtable-source.js';
import { chain, columnRange, latestOnly, type Mutation } from '../src/store/bigtable/bigtable-client.js';
import { FIRST_TOKEN } from '../src/sources/catalogue/scan-catalogue.js';
import { startBigtable } from '../test/support/bigtable-server.js';
import { heroicWrite } from '../test/support/heroic-writer.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const SERIES = Number(args.get('series') ?? 20);
const POINTS = Number(args.get('points') ?? 100_000);
const RUNS = Number(args.get('runs') ?? 3);
const CONCURRENCY = Number(args.get('concurrency') ?? 3);
const DISCOVERY = (args.get('discovery') ?? '10000,100000').split(',').map(Number);
const ONLY_COPY = args.get('only') === 'copy';
const COPY_TO = args.get('to') ?? 'embedded';
if (COPY_TO !== 'embedded' && COPY_TO !== 'cassandra') throw new Error(`--to ${COPY_TO}: embedded or cassandra`);
const STEP = 10_000;
const WIDTH = 2 ** 32;
/** Half the points before a period boundary, half after. */
const START = 400 * WIDTH - (POINTS / 2) * STEP;
const END = START + (POINTS - 1) * STEP;
const PROJECT = 'kairograph-bench';

const server = await startBigtable();
try {
  // Read: fill, then the engine against the floor.
  heroicWrite(place('read'), []);
  const reads = table('read');
  const rows: Buffer[] = [];
  let filled = performance.now();
  for (let s = 0; s < SERIES; s++) {
    const byBase = new Map<number, Mutation[]>();
    for (let i = 0; i < POINTS; i++) {
      const t = START + i * STEP;
      const base = t - (t % WIDTH);
      let list = byBase.get(base);
      if (list === undefined) byBase.set(base, (list = []));
      const qualifier = bigtableQualifier(t - base);
      list.push({ set: { family: 'points', qualifier, timestampMicros: -1, value: bigtableValue(s + (i % 97) / 4) } });
    }
    for (const [base, mutations] of byBase) {
      const key = encodeBigtableKey({ key: 'bench.bt', tags: { host: `h-${s}` }, resource: {} }, base);
      rows.push(key);
      for (let at = 0; at < mutations.length; at += 10_000)
        await reads.client.mutateRows([{ key, mutations: mutations.slice(at, at + 10_000) }]);
    }
  }
  filled = performance.now() - filled;
  console.log(`filled ${SERIES * POINTS} points in ${rows.length} rows in ${(filled / 1000).toFixed(1)} s`);
  const source = openHeroicBigtableSource(
    {
      name: 'bt',
      layout: 'heroic',
      bigtable: { project: PROJECT, instance: 'read', table: 'metrics', endpoint: server.endpoint, google: false },
      catalogue: { kind: 'scan', path: tempDir(), refreshIntervalMs: 3_600_000 },
    },
    undefined,
  );
  try {
    await catalogued(source);
    const run = hourlyAverageBy(source, 'bench.bt', 'host', START, END);
    const viaSource = async () => {
      const { ms, pointsRead } = await run();
      if (pointsRead !== SERIES * POINTS) throw new Error(`the source read ${pointsRead} points`);
      return ms;
    };
    const bare = async () => {
      const started = performance.now();
      let cells = 0;
      let next = 0;
      const filter = chain([columnRange('points', bigtableQualifier(0), bigtableQualifier(WIDTH - 1)), latestOnly()]);
      const worker = async () => {
        while (next < rows.length) {
          const key = rows[next++]!;
          for await (const row of reads.client.readRows({ start: key, end: key }, filter, 1))
            cells += row.values.length;
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      if (cells !== SERIES * POINTS) throw new Error(`the floor read ${cells} cells`);
      return performance.now() - started;
    };
    const cassandra = COPY_TO === 'cassandra' ? await startCassandra({ heap: '1g' }) : undefined;
    const store: Store = cassandra
      ? await CassandraStore.open({
          contactPoints: [cassandra.contactPoint],
          localDataCenter: cassandra.localDataCenter,
          keyspace: `bench_bt_copy_${Date.now().toString(36)}`,
        })
      : await EmbeddedStore.open({ path: tempDir() });
    // The copy waits for a catalogue pass that ends after it starts, as it must to see every series: passes every second.
    const from = openHeroicBigtableSource(
      {
        name: 'bt',
        layout: 'heroic',
        bigtable: { project: PROJECT, instance: 'read', table: 'metrics', endpoint: server.endpoint, google: false },
        catalogue: { kind: 'scan', path: tempDir(), refreshIntervalMs: 1000 },
      },
      undefined,
    );
    try {
      const result = await copySeries({
        from,
        to: new KairosdbSource('kairosdb', store),
        metrics: ['bench.bt'],
        range: { startMs: START, endMs: END },
        statePath: join(tempDir(), 'copy.state'),
      });
      if (result.points !== SERIES * POINTS || result.mismatches.length > 0)
        throw new Error(`the copy wrote ${result.points} points, ${result.mismatches.length} mismatches`);
      console.log(
        `copied ${result.points} points (${result.partitions} partitions) into ${cassandra ? `Cassandra (${cassandra.contactPoint})` : 'the embedded store'} in ${result.copySeconds.toFixed(2)} s, ${Math.round(result.points / result.copySeconds)} points/s, read back equal`,
      );
    } finally {
      await from.close();
      await store.close();
      await cassandra?.stop();
    }
    if (!ONLY_COPY) await measureReads(viaSource, bare, rows.length);
  } finally {
    await source.close();
    await reads.close();
  }

  // Series discovery: one catalogue pass over series × 2 periods.
  if (!ONLY_COPY) console.log('\n| series | rows (× 2 periods) | fill | one pass over the keys | keys/s |');
  if (!ONLY_COPY) console.log('| --- | --- | --- | --- | --- |');
  const decode = heroicKeyDecoder('bigtable');
  for (const count of ONLY_COPY ? [] : DISCOVERY) {
    await discovery(count, decode);
  }
} finally {
  await server.stop();
  removeTempDirs();
}

function place(instance: string) {
  return { endpoint: server.endpoint, writer: server.writer, project: PROJECT, instance };
}

function table(instance: string): BigtableTable {
  return new BigtableTable({
    endpoint: server.endpoint,
    emulator: true,
    project: PROJECT,
    instance,
    table: 'metrics',
    deadlineMs: 600_000,
    attempts: 3,
  });
}

async function measureReads(
  viaSource: () => Promise<number>,
  bare: () => Promise<number>,
  rowCount: number,
): Promise<void> {
  await viaSource();
  await bare();
  const sourceMs: number[] = [];
  const bareMs: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    sourceMs.push(await viaSource());
    bareMs.push(await bare());
  }
  const points = SERIES * POINTS;
  console.log(`\n| read of ${points} points (${rowCount} rows) | median | points/s | × floor |`);
  console.log('| --- | --- | --- | --- |');
  console.log(
    `| source: avg per hour by host (executeQuery) | ${(median(sourceMs) / 1000).toFixed(2)} s | ${Math.round(points / (median(sourceMs) / 1000))} | ${(median(sourceMs) / median(bareMs)).toFixed(2)} |`,
  );
  console.log(
    `| floor: the client's ReadRows, ${CONCURRENCY} rows at a time | ${(median(bareMs) / 1000).toFixed(2)} s | ${Math.round(points / (median(bareMs) / 1000))} | 1.00 |`,
  );
}

async function discovery(count: number, decode: ReturnType<typeof heroicKeyDecoder>): Promise<void> {
  const instance = `discovery-${count}`;
  heroicWrite(place(instance), []);
  const t = table(instance);
  let fill = performance.now();
  let batch: { key: Buffer; mutations: Mutation[] }[] = [];
  const one: Mutation[] = [
    { set: { family: 'points', qualifier: bigtableQualifier(0), timestampMicros: -1, value: bigtableValue(1) } },
  ];
  for (let s = 0; s < count; s++)
    for (const base of [399 * WIDTH, 400 * WIDTH]) {
      const tags = { host: `host-${s % 1000}`, role: `r-${Math.floor(s / 1000)}` };
      batch.push({ key: encodeBigtableKey({ key: `metric-${s % 10}`, tags, resource: {} }, base), mutations: one });
      if (batch.length === 1000) {
        await t.client.mutateRows(batch);
        batch = [];
      }
    }
  if (batch.length > 0) await t.client.mutateRows(batch);
  fill = performance.now() - fill;
  const started = performance.now();
  let after = FIRST_TOKEN;
  let keys = 0;
  for (;;) {
    const page = await t.keys(after, 5000);
    for (const k of page.keys) if (!('skip' in decode(k.key))) keys++;
    if (page.done) break;
    after = page.keys.at(-1)!.token;
  }
  const ms = performance.now() - started;
  if (keys !== 2 * count) throw new Error(`the pass found ${keys} keys`);
  console.log(
    `| ${count} | ${2 * count} | ${(fill / 1000).toFixed(1)} s | ${(ms / 1000).toFixed(2)} s | ${Math.round(keys / (ms / 1000))} |`,
  );
  await t.close();
}
