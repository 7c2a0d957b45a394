/**
 * Ingest throughput through KairosDB's REST API: gzip-compressed batches POSTed to /api/v1/datapoints on a real
 * gateway over 127.0.0.1, against two baselines measured in the same run on the same batches: store.write of the
 * already-validated batches (the store alone), and the facade alone (inflate, parse, validate; no store). Each write
 * phase reports where the CPU went: this Node process and Cassandra's JVM (found by its CQL port) in µs per point, and
 * what else kept the machine busy meanwhile.
 *
 *   npm run bench:rest-ingest -- --store embedded|cassandra [--batches 60 --batch-points 10000 --series 100
 *     --concurrency 4 --runs 5 --max-seconds 60]
 */
import { readFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { cpus, totalmem } from 'node:os';
import cassandra from 'cassandra-driver';
import { pino } from 'pino';
import { loadConfig } from '../src/gateway/config.js';
import { parseJson } from '../src/kairos-json/json-text.js';
import { parseDatapoints } from '../src/kairos-rest/parse-datapoints.js';
import { createGateway, listen } from '../src/gateway/create-gateway.js';
import { primaryOnly } from '../src/sources/open-sources.js';
import { CassandraStore } from '../src/store/cassandra/cassandra-store.js';
import { CASSANDRA_KEY_LIMITS } from '../src/store/cassandra/key-limits.js';
import { EmbeddedStore } from '../src/store/embedded/embedded-store.js';
import { embeddedKeyLimits } from '../src/store/embedded/keys.js';
import type { Store } from '../src/store/store.js';
import type { WriteBatch } from '../src/model/write-batch.js';
import { startCassandra, type CassandraServer } from '../test/support/cassandra-server.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { median, parseArgs } from './measure.js';
import { cpuSeconds, pidListeningOn } from './process-cpu.js';

const args = parseArgs(process.argv.slice(2));
const STORE = args.get('store') ?? 'embedded';
const BATCHES = Number(args.get('batches') ?? 60);
const BATCH_POINTS = Number(args.get('batch-points') ?? 10_000);
const SERIES = Number(args.get('series') ?? 100);
const CONCURRENCY = Number(args.get('concurrency') ?? 4);
const RUNS = Number(args.get('runs') ?? 5);
const MAX_SECONDS = Number(args.get('max-seconds') ?? 60);
const STEP_MS = 10_000;
const START_MS = Date.UTC(2026, 0, 1);
if (STORE !== 'embedded' && STORE !== 'cassandra')
  throw new Error(`--store must be embedded or cassandra (got ${STORE})`);
if (BATCH_POINTS % SERIES !== 0) throw new Error('--batch-points must be a multiple of --series');

/**
 * Batch b: every series gets the next BATCH_POINTS / SERIES points, 10 s apart, as a collector flushing its
 * buffer would send them; values are doubles with two decimals from a fixed integer hash.
 */
function batchJson(b: number): string {
  const perSeries = BATCH_POINTS / SERIES;
  const metrics: string[] = [];
  for (let s = 0; s < SERIES; s++) {
    const points: string[] = [];
    for (let k = 0; k < perSeries; k++) {
      const i = b * perSeries + k;
      const h = Math.imul(s * 7919 + i, 0x9e3779b1) >>> 0;
      points.push(`[${START_MS + i * STEP_MS},${((h % 100_000) / 100).toFixed(2)}]`);
    }
    metrics.push(
      `{"name":"bench.rest","tags":{"host":"host-${s % 20}","series":"s${s}"},"datapoints":[${points.join(',')}]}`,
    );
  }
  return `[${metrics.join(',')}]`;
}

const fmt = (pointsPerSecond: number) => `${(pointsPerSecond / 1e3).toFixed(0).padStart(6)} k points/s`;

/** Runs `work(i)` for i in [0, count) with `concurrency` in flight; stops starting new ones after `deadlineMs`. Returns how many finished. */
async function pool(
  count: number,
  concurrency: number,
  deadlineMs: number,
  work: (i: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < count && performance.now() < deadlineMs) {
      await work(next++);
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return done;
}

interface Stores {
  fresh(run: number, label: string): Promise<Store>;
  dispose(): Promise<void>;
  /** The pid of the store's server process when it runs on this machine (Cassandra's JVM). */
  readonly serverPid?: number | undefined;
}

/** CPU seconds so far: this process, the store's server, and every core of the machine (busy, from /proc/stat). */
function cpuNow(serverPid: number | undefined): { node: number; server: number; machine: number } {
  const { user, system } = process.cpuUsage();
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal: all but idle and iowait are busy.
  const busy = ticks.slice(0, 8).reduce((n, t, i) => (i === 3 || i === 4 ? n : n + t), 0) / 100;
  return { node: (user + system) / 1e6, server: serverPid === undefined ? 0 : cpuSeconds(serverPid), machine: busy };
}

interface Phase {
  readonly pointsPerSecond: number;
  /** µs of CPU per point written. */
  readonly nodeUs: number;
  readonly serverUs: number;
  /** What other processes used meanwhile, in cores. */
  readonly otherCores: number;
}

/** Runs `write` over the batches with CONCURRENCY in flight and measures the rate and where the CPU went. */
async function phase(
  serverPid: number | undefined,
  write: (i: number) => Promise<void>,
): Promise<Phase & { done: number }> {
  const before = cpuNow(serverPid);
  const t = performance.now();
  const done = await pool(BATCHES, CONCURRENCY, t + MAX_SECONDS * 1000, write);
  const seconds = (performance.now() - t) / 1000;
  const after = cpuNow(serverPid);
  const points = done * BATCH_POINTS;
  const node = after.node - before.node;
  const server = after.server - before.server;
  return {
    done,
    pointsPerSecond: points / seconds,
    nodeUs: (node * 1e6) / points,
    serverUs: (server * 1e6) / points,
    otherCores: Math.max(0, after.machine - before.machine - node - server) / seconds,
  };
}

async function embeddedStores(): Promise<Stores> {
  return {
    fresh: () => EmbeddedStore.open({ path: tempDir('kairograph-bench-rest-') }),
    dispose: async () => removeTempDirs(),
  };
}

async function cassandraStores(): Promise<Stores & { server: CassandraServer }> {
  const server = await startCassandra();
  const admin = new cassandra.Client({
    contactPoints: [server.contactPoint],
    localDataCenter: server.localDataCenter,
    protocolOptions: { maxVersion: 4 },
    socketOptions: { readTimeout: 120_000 },
  });
  await admin.connect();
  const keyspaces: string[] = [];
  return {
    server,
    serverPid: server.pid || pidListeningOn(server.port),
    async fresh(run, label) {
      const keyspace = `kg_bench_rest_${label}_${run}`;
      // The keyspaces of earlier phases (their stores are closed) go first: dropped, their memtables are discarded,
      // where kept they would be flushed and compacted on the CPU of the phases after them.
      for (const earlier of [...keyspaces.splice(0), keyspace])
        await admin.execute(`DROP KEYSPACE IF EXISTS ${earlier}`);
      keyspaces.push(keyspace);
      // ONE: a single node, where QUORUM is the same replica.
      return CassandraStore.open({
        contactPoints: [server.contactPoint],
        localDataCenter: server.localDataCenter,
        keyspace,
        writeConsistency: 'ONE',
      });
    },
    async dispose() {
      for (const keyspace of keyspaces) await admin.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
      await admin.shutdown();
      await server.stop();
    },
  };
}

const stores = STORE === 'cassandra' ? await cassandraStores() : await embeddedStores();
const jsonTexts = Array.from({ length: BATCHES }, (_, b) => batchJson(b));
const bodies = jsonTexts.map((text) => gzipSync(text));
const limits = {
  maxPoints: BATCH_POINTS,
  keys: STORE === 'cassandra' ? CASSANDRA_KEY_LIMITS : embeddedKeyLimits(1978),
};
const writeBatches: WriteBatch[] = bodies.map((body) =>
  parseDatapoints(parseJson(gunzipSync(body).toString('utf8'), { exactNumbers: true }), limits),
);
const rawBytes = jsonTexts.reduce((n, t) => n + t.length, 0);
const gzBytes = bodies.reduce((n, b) => n + b.length, 0);

console.log(
  `command: npm run bench:rest-ingest -- --store ${STORE} --batches ${BATCHES} --batch-points ${BATCH_POINTS} --series ${SERIES} --concurrency ${CONCURRENCY} --runs ${RUNS} --max-seconds ${MAX_SECONDS}`,
);
console.log(
  `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM, Node ${process.version}`,
);
console.log(
  `dataset: ${BATCHES} batches × ${BATCH_POINTS.toLocaleString('en')} points (${SERIES} series × ${BATCH_POINTS / SERIES} doubles, 10 s apart) = ` +
    `${(BATCHES * BATCH_POINTS).toLocaleString('en')} points; JSON ${(rawBytes / BATCHES / 1024).toFixed(0)} KB per batch, gzip ${(gzBytes / BATCHES / 1024).toFixed(0)} KB ` +
    `(${(gzBytes / (BATCHES * BATCH_POINTS)).toFixed(2)} bytes per point); ${CONCURRENCY} requests in flight; each run stops starting batches after ${MAX_SECONDS} s`,
);
if (STORE === 'cassandra')
  console.log(
    `store: Cassandra 5.0, one local node (test/support/cassandra-server.ts), write consistency ONE, a fresh keyspace per run`,
  );
else console.log('store: embedded (LMDB), a fresh directory per run, writes acknowledged once flushed to disk');

const serverPid = 'serverPid' in stores ? stores.serverPid : undefined;
if (STORE === 'cassandra')
  console.log(
    serverPid === undefined
      ? 'cpu: Cassandra runs elsewhere, only this process is measured'
      : `cpu: this process and Cassandra's JVM (pid ${serverPid})`,
  );
const results: { facade: number; direct: Phase; rest: Phase }[] = [];
for (let run = 0; run <= RUNS; run++) {
  // Facade alone, on one core: what the REST layer costs per point before any store work.
  const t = performance.now();
  for (const body of bodies)
    parseDatapoints(parseJson(gunzipSync(body).toString('utf8'), { exactNumbers: true }), limits);
  const facade = (BATCHES * BATCH_POINTS) / ((performance.now() - t) / 1000);

  const direct = await stores.fresh(run, 'direct');
  const directPhase = await phase(serverPid, (i) => direct.write(writeBatches[i]!));
  await direct.close();

  const store = await stores.fresh(run, 'rest');
  const config = loadConfig({ SEED_DEMO: 'false', MAX_WRITE_POINTS: String(BATCH_POINTS) });
  const gateway = createGateway({
    sources: primaryOnly(config.primarySourceName, store),
    config,
    log: pino({ level: 'silent' }),
  });
  const server = await listen(gateway.handle, '127.0.0.1', 0, { requestTimeoutMs: config.queryTimeoutMs });
  const restPhase = await phase(serverPid, async (i) => {
    const response = await fetch(`${server.url}/api/v1/datapoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Uint8Array(bodies[i]!),
    });
    if (response.status !== 204) throw new Error(`batch ${i}: ${response.status} ${await response.text()}`);
  });
  if (run === RUNS) {
    // What went in comes out: one count over everything, through the same API.
    const query = {
      start_absolute: 0,
      metrics: [{ name: 'bench.rest', aggregators: [{ name: 'count', sampling: { value: 100, unit: 'years' } }] }],
    };
    const answer = (await (
      await fetch(`${server.url}/api/v1/datapoints/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(query),
      })
    ).json()) as { queries: { results: { values: number[][] }[] }[] };
    const counted = answer.queries[0]!.results[0]!.values[0]![1];
    if (counted !== restPhase.done * BATCH_POINTS)
      throw new Error(`counted ${counted} points, posted ${restPhase.done * BATCH_POINTS}`);
    console.log(`check: a count query over the last run answers ${counted!.toLocaleString('en')} points, as posted`);
  }
  await server.close();
  await store.close();
  const line =
    `facade alone ${fmt(facade)}   store.write ${fmt(directPhase.pointsPerSecond)} (${directPhase.done} batches; ${cpuText(directPhase)})   ` +
    `REST ${fmt(restPhase.pointsPerSecond)} (${restPhase.done} batches; ${cpuText(restPhase)})`;
  // Run 0 warms the JIT and the store, as a running server is warm; it is printed but not counted.
  if (run === 0) console.log(`warm-up: ${line}`);
  else {
    console.log(`run ${run}:   ${line}`);
    results.push({ facade, direct: directPhase, rest: restPhase });
  }
}
await stores.dispose();

const m = (pick: (r: (typeof results)[number]) => number) => median(results.map(pick));
const cpuMedians = (p: (r: (typeof results)[number]) => Phase) =>
  cpuText({
    pointsPerSecond: 0,
    nodeUs: m((r) => p(r).nodeUs),
    serverUs: m((r) => p(r).serverUs),
    otherCores: m((r) => p(r).otherCores),
  });
console.log(`\nmedians of ${RUNS} runs:`);
console.log(
  `  POST /api/v1/datapoints (gzip)     ${fmt(m((r) => r.rest.pointsPerSecond))}   ${cpuMedians((r) => r.rest)}`,
);
console.log(
  `  store.write, same batches          ${fmt(m((r) => r.direct.pointsPerSecond))}   ${cpuMedians((r) => r.direct)}   ` +
    `REST / store.write = ${(m((r) => r.rest.pointsPerSecond) / m((r) => r.direct.pointsPerSecond)).toFixed(2)}`,
);
console.log(`  facade alone (inflate+parse+validate, one core) ${fmt(m((r) => r.facade))}`);
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

/** `node <t> µs + cassandra <t> µs per point, others <n> cores` (the store's server only when measured). */
function cpuText(p: Phase): string {
  const server = serverPid === undefined ? '' : ` + cassandra ${p.serverUs.toFixed(2)} µs`;
  return `node ${p.nodeUs.toFixed(2)} µs${server} per point, others ${p.otherCores.toFixed(2)} cores`;
}
