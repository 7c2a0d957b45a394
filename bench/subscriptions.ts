/**
 * bench:subscriptions: many WebSocket subscribers of a few distinct `liveSeries` queries on the embedded store, and a
 * writer adding a point to every series each period. The gateway runs as production runs it, in a process of its own
 * (bench/gateway-process.ts), so its RSS, heap and CPU are its own; the subscribers are graphql-ws clients
 * (`createClient` on `ws`, one socket each, as a Node front end makes them) in this process. Reported: memory per
 * subscriber (the gateway's RSS and heap after all subscribed, against after one per query), the gateway's CPU per
 * write (each write re-runs every query once and sends every subscriber one update), and the time from a write's
 * request to each subscriber's update and to the last one's (p50/p99; target: last p99 ≤ 250 ms). Heap per subscriber
 * far below one answer's size shows the answer is not copied per subscriber.
 *
 *   npm run bench:subscriptions -- --subscribers 1000 --queries 10 --period-ms 10000 --writes 6
 */
import { readdirSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { formatProfileSummary, summarizeCpuProfile } from './cpu-profile.js';
import { buildGateway, cpuSeconds, type GatewayProcess, memoryKb, startGateway } from './gateway-process.js';
import { median, parseArgs, percentile } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const SUBSCRIBERS = Number(args.get('subscribers') ?? 1000);
const QUERIES = Number(args.get('queries') ?? 10);
/** Series per query (hosts of its metric), and the points each holds in the window when subscribers join. */
const SERIES = Number(args.get('series') ?? 5);
const HISTORY = Number(args.get('history') ?? 360);
const PERIOD_MS = Number(args.get('period-ms') ?? 10_000);
const WRITES = Number(args.get('writes') ?? 6);
/** Writes before the measured ones, reported apart: the first updates after joining run cold code. */
const WARMUP_WRITES = Number(args.get('warmup-writes') ?? 2);
/** The whole run stops after this, whatever is left. */
const MAX_SECONDS = Number(args.get('max-seconds') ?? 600);
const BUILD = args.get('build') !== 'false';
/** `--cpu-prof <dir>`: the gateway writes a V8 profile of the whole run there, summarised at the end. */
const CPU_PROF_DIR = args.get('cpu-prof');
const DIR = fileURLToPath(new URL('..', import.meta.url));
const STEP_MS = 10_000;
/** Preloaded into the gateway: a full collection on SIGUSR2 (which the gateway does not otherwise use). */
const GC_ON_SIGNAL = 'data:text/javascript,process.on("SIGUSR2",()=>globalThis.gc())';
/** Subscribers joining at once. */
const JOIN_BATCH = 50;

const QUERY = `subscription Live($metric: String!) {
  liveSeries(metric: $metric, from: "now-1h") { kind changes { series { tags { name values } points { epochMs value } } } }
}`;

interface Subscriber {
  readonly client: Client;
  readonly query: number;
  /** When the snapshot came, and when each write's update came (by write). */
  snapshotAt?: number;
  readonly updates: Map<number, number>;
}

const deadline = Date.now() + MAX_SECONDS * 1000;
const metric = (q: number) => `bench.live.${q}`;
/** The write under way, whose updates the subscribers are waiting for, and the value it writes. */
let currentWrite = -1;
const writtenValue = (write: number) => 1_000_000 + write;
let wrongUpdates = 0;
/** The first subscriber's failure, which ends the run. */
let failure: Error | undefined;
let snapshotBytes = 0;
let updateBytes = 0;

async function main(): Promise<void> {
  console.log(
    `command: npm run bench:subscriptions -- --subscribers ${SUBSCRIBERS} --queries ${QUERIES} --series ${SERIES} --history ${HISTORY} --period-ms ${PERIOD_MS} --writes ${WRITES} --warmup-writes ${WARMUP_WRITES}`,
  );
  console.log(`load average at the start: ${loadAverage()}`);
  if (BUILD) buildGateway(DIR);
  const dataDir = tempDir('kairograph-bench-subscriptions-');
  const gateway = await startGateway(
    DIR,
    {
      DATA_DIR: dataDir,
      SEED_DEMO: 'false',
      // Updates come from the writes through this gateway alone, never from a poll.
      LIVE_POLL_MS: '3600000',
      MAX_SUBSCRIPTIONS: String(SUBSCRIBERS + 100),
      MAX_WEBSOCKETS: String(SUBSCRIBERS + 100),
      QUOTA_SUBSCRIPTIONS: '0',
      QUOTA_REQUESTS: '0',
    },
    undefined,
    // So that memory is read after a full collection: what the gateway holds, not the garbage of sends.
    ['--expose-gc', '--import', GC_ON_SIGNAL, ...(CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR] : [])],
  );
  console.log(`gateway: ${gateway.command} (pid ${gateway.pid})`);
  const subscribers: Subscriber[] = [];
  try {
    await seed(gateway.url);
    const idle = await memory(gateway);
    // One subscriber per query first: the live computations and their answers exist from here on.
    for (let q = 0; q < QUERIES; q++) subscribers.push(subscribe(gateway.url, q));
    await allSnapshots(subscribers);
    const shared = await memory(gateway);
    for (let i = QUERIES; i < SUBSCRIBERS; i += JOIN_BATCH) {
      const batch: Subscriber[] = [];
      for (let j = i; j < Math.min(SUBSCRIBERS, i + JOIN_BATCH); j++) batch.push(subscribe(gateway.url, j % QUERIES));
      subscribers.push(...batch);
      await allSnapshots(batch);
    }
    const joined = await memory(gateway);
    console.log(
      `${subscribers.length} subscribers joined; a snapshot is ${(snapshotBytes / 1024).toFixed(1)} KiB of JSON (${SERIES} series × ${HISTORY} points)`,
    );

    const lastMs: number[] = [];
    const eachMs: number[] = [];
    let cpuBefore = cpuSeconds(gateway.pid);
    for (let write = 0; write < WARMUP_WRITES + WRITES && Date.now() < deadline; write++) {
      const warmup = write < WARMUP_WRITES;
      if (write === WARMUP_WRITES) cpuBefore = cpuSeconds(gateway.pid);
      const started = Date.now();
      currentWrite = write;
      const sent = performance.now();
      await writePoint(gateway.url, write);
      while (subscribers.some((s) => !s.updates.has(write)) && Date.now() - started < PERIOD_MS * 2) {
        await sleep(5);
      }
      const arrived = subscribers.flatMap((s) => (s.updates.has(write) ? [s.updates.get(write)! - sent] : []));
      const missing = subscribers.length - arrived.length;
      if (!warmup) {
        eachMs.push(...arrived);
        lastMs.push(missing === 0 ? Math.max(...arrived) : Number.POSITIVE_INFINITY);
      }
      console.log(
        `${warmup ? 'warm-up ' : ''}write ${write + 1}: last subscriber's update after ${missing === 0 ? `${Math.max(...arrived).toFixed(1)} ms` : `never (${missing} missing)`}, median subscriber ${median(arrived).toFixed(1)} ms`,
      );
      // Wait out the period before the next write (the CPU below is the writes' and their updates' only).
      const rest = PERIOD_MS - (Date.now() - started);
      if (rest > 0 && write < WARMUP_WRITES + WRITES - 1) await sleep(rest);
    }
    const cpu = cpuSeconds(gateway.pid) - cpuBefore;
    const after = await memory(gateway);

    const perSubscriber = (from: Memory, to: Memory, count: number) =>
      `RSS ${((to.rssKb - from.rssKb) / count).toFixed(1)} KiB, heap ${((to.heapKb - from.heapKb) / count).toFixed(1)} KiB`;
    const others = SUBSCRIBERS - QUERIES;
    console.log('\n## Results');
    console.log(`load average at the end: ${loadAverage()}`);
    console.log(
      `gateway memory: idle RSS ${mb(idle.rssKb)} heap ${mb(idle.heapKb)}; ${QUERIES} subscribers (one per query) RSS ${mb(shared.rssKb)} heap ${mb(shared.heapKb)}; ${SUBSCRIBERS} subscribers RSS ${mb(joined.rssKb)} heap ${mb(joined.heapKb)}; after the writes RSS ${mb(after.rssKb)} heap ${mb(after.heapKb)}`,
    );
    console.log(
      `memory per subscriber (the ${others} beyond one per query): ${perSubscriber(shared, joined, others)} when joined, ${perSubscriber(shared, after, others)} after the writes; one snapshot is ${(snapshotBytes / 1024).toFixed(1)} KiB, an update ${(updateBytes / 1024).toFixed(2)} KiB`,
    );
    console.log(
      `gateway CPU per measured write: ${((cpu / lastMs.length) * 1000).toFixed(1)} ms (${QUERIES} queries re-run, ${SUBSCRIBERS} updates sent: ${((cpu / lastMs.length / SUBSCRIBERS) * 1e6).toFixed(1)} µs per update sent)`,
    );
    console.log(
      `write → last subscriber's update over ${lastMs.length} writes after ${WARMUP_WRITES} warm-up writes: p50 ${percentile(lastMs, 0.5).toFixed(1)} ms, p99 ${percentile(lastMs, 0.99).toFixed(1)} ms (target p99 ≤ 250 ms)`,
    );
    console.log(
      `write → each subscriber's update (${eachMs.length}): p50 ${percentile(eachMs, 0.5).toFixed(1)} ms, p99 ${percentile(eachMs, 0.99).toFixed(1)} ms; updates with the wrong point: ${wrongUpdates}`,
    );
  } finally {
    await Promise.all(subscribers.map((s) => s.client.dispose()));
    await gateway.stop();
    removeTempDirs();
  }
  if (CPU_PROF_DIR) {
    const newest = readdirSync(CPU_PROF_DIR)
      .filter((name) => name.endsWith('.cpuprofile'))
      .map((name) => join(CPU_PROF_DIR, name))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
    if (newest !== undefined)
      console.log(`\n## The gateway's CPU profile (whole run)\n${formatProfileSummary(summarizeCpuProfile(newest))}`);
  }
}

function subscribe(url: string, query: number): Subscriber {
  const client = createClient({
    url: `${url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
  });
  const subscriber: Subscriber = { client, query, updates: new Map() };
  client.subscribe(
    { query: QUERY, variables: { metric: metric(query) } },
    {
      next(result) {
        const at = performance.now();
        const live = (result.data as { liveSeries?: LiveUpdate } | undefined)?.liveSeries;
        if (live === undefined) throw new Error(`a subscriber got no update: ${JSON.stringify(result)}`);
        if (live.kind === 'SNAPSHOT') {
          subscriber.snapshotAt = at;
          snapshotBytes ||= JSON.stringify(result.data).length;
          return;
        }
        updateBytes ||= JSON.stringify(result.data).length;
        const points = live.changes.flatMap((change) => change.series.points);
        if (points.length !== SERIES || points.some((point) => point.value !== writtenValue(currentWrite)))
          wrongUpdates++;
        if (!subscriber.updates.has(currentWrite)) subscriber.updates.set(currentWrite, at);
      },
      error(error) {
        failure ??= new Error(`a subscriber of query ${query} failed: ${JSON.stringify(error)}`);
      },
      complete() {},
    },
  );
  return subscriber;
}

interface LiveUpdate {
  readonly kind: 'SNAPSHOT' | 'UPDATE';
  readonly changes: readonly { series: { points: readonly { epochMs: number; value: number }[] } }[];
}

async function allSnapshots(subscribers: readonly Subscriber[]): Promise<void> {
  while (subscribers.some((s) => s.snapshotAt === undefined)) {
    if (failure !== undefined) throw failure;
    if (Date.now() > deadline) throw new Error('subscribers did not get their snapshots within --max-seconds');
    await sleep(10);
  }
}

/** The window's history: every query's series, a point every 10 s for HISTORY steps before now. */
async function seed(url: string): Promise<void> {
  const now = Math.floor(Date.now() / STEP_MS) * STEP_MS;
  const series = [];
  for (let q = 0; q < QUERIES; q++)
    for (let s = 0; s < SERIES; s++)
      series.push({
        metric: metric(q),
        tags: [{ name: 'host', value: `h${s}` }],
        points: Array.from({ length: HISTORY }, (_, i) => ({ time: now - (HISTORY - i) * STEP_MS, value: i })),
      });
  await graphql(url, 'mutation Seed($series: [SeriesPointsInput!]!) { addPoints(series: $series) { points } }', {
    series,
  });
}

/** One point for every series of every query, at now, in one request: one write the subscribers are told of. */
async function writePoint(url: string, write: number): Promise<void> {
  const time = Date.now();
  const series = [];
  for (let q = 0; q < QUERIES; q++)
    for (let s = 0; s < SERIES; s++)
      series.push({
        metric: metric(q),
        tags: [{ name: 'host', value: `h${s}` }],
        points: [{ time, value: writtenValue(write) }],
      });
  await graphql(url, 'mutation Write($series: [SeriesPointsInput!]!) { addPoints(series: $series) { points } }', {
    series,
  });
}

async function graphql(url: string, query: string, variables: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { errors?: unknown };
  if (body.errors !== undefined) throw new Error(`the write failed: ${JSON.stringify(body.errors)}`);
}

interface Memory {
  readonly rssKb: number;
  readonly heapKb: number;
}

/** The gateway's RSS, and its heap in use from /metrics, each after a full collection (the least of three). */
async function memory(gateway: GatewayProcess): Promise<Memory> {
  let rssKb = Number.POSITIVE_INFINITY;
  let heapKb = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    process.kill(gateway.pid, 'SIGUSR2');
    await sleep(500);
    rssKb = Math.min(rssKb, memoryKb(gateway.pid, 'VmRSS'));
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    const used = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(metrics);
    if (used === null) throw new Error('the gateway reports no nodejs_heap_size_used_bytes on /metrics');
    heapKb = Math.min(heapKb, Number(used[1]) / 1024);
  }
  return { rssKb, heapKb };
}

const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const loadAverage = () =>
  loadavg()
    .map((load) => load.toFixed(2))
    .join(', ');

await main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
