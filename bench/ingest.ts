/**
 * Ingest throughput per protocol: the same points sent as Prometheus remote write 1.0 and 2.0 (snappy protobuf, as
 * Prometheus sends them), InfluxDB line protocol (gzip, as Telegraf sends it) and KairosDB's REST JSON (gzip), into the
 * embedded store and, with `--stores ...,cassandra`, into a keyspace of a Cassandra node the benchmark boots. The
 * gateway runs as production runs it, compiled, in a process of its own (bench/gateway-process.ts), so its CPU and
 * peak RSS are its own and the senders (this process) do not share its thread. On Cassandra, real KairosDB 1.3 takes
 * the same REST requests into the same keyspace in the same runs, turn about with the gateway: the issue's baseline.
 *
 *   npm run bench:ingest -- [--series 1000 --points 100 --request-points 2000 --concurrency 4 --runs 3
 *                            --stores embedded,cassandra --protocols remote_write_1,... --build true --cpu-prof DIR]
 *
 * `--cpu-prof DIR` writes a V8 CPU profile of each gateway process into DIR (profiles slow it: never with figures).
 */
import { loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import snappy from 'snappyjs';
import { fileURLToPath } from 'node:url';
import { startCassandra } from '../test/support/cassandra-server.js';
import { startKairosDB } from '../test/support/kairosdb-server.js';
import { encodeWriteRequestV1, encodeWriteRequestV2, type WriteSeries } from '../test/support/remote-write.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import {
  buildGateway,
  cpuSeconds,
  diskWriteBytes,
  type GatewayProcess,
  memoryKb,
  startGateway,
} from './gateway-process.js';
import { median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const SERIES = Number(args.get('series') ?? 1000);
const POINTS = Number(args.get('points') ?? 100);
const REQUEST_POINTS = Number(args.get('request-points') ?? 2000);
const CONCURRENCY = Number(args.get('concurrency') ?? 4);
const RUNS = Number(args.get('runs') ?? 3);
const STORES = (args.get('stores') ?? 'embedded').split(',').filter((name) => name !== '');
const BUILD = args.get('build') !== 'false';
const CPU_PROF = args.get('cpu-prof');
const DIR = fileURLToPath(new URL('..', import.meta.url));
const START_MS = Date.UTC(2026, 0, 1);
const STEP_MS = 15_000;

interface Request {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
}

/** The batch's series under the metric bench_<name>. */
function renamed(batch: WriteSeries[], name: string): WriteSeries[] {
  return batch.map((series) => ({ ...series, labels: { ...series.labels, __name__: `bench_${name}` } }));
}

/**
 * Requests of REQUEST_POINTS points each, in time order across all series, as a collector flushes them. With more
 * series than that, each time step's series go out in requests of REQUEST_POINTS series.
 */
function slices(): WriteSeries[][] {
  const perRequest = Math.max(1, Math.floor(REQUEST_POINTS / SERIES));
  const seriesPerRequest = Math.min(SERIES, REQUEST_POINTS);
  const out: WriteSeries[][] = [];
  for (let from = 0; from < POINTS; from += perRequest) {
    const count = Math.min(perRequest, POINTS - from);
    for (let first = 0; first < SERIES; first += seriesPerRequest) {
      out.push(
        Array.from({ length: Math.min(seriesPerRequest, SERIES - first) }, (_, k) => {
          const s = first + k;
          return {
            labels: { __name__: 'bench_ingest', host: `host-${s % 100}`, cpu: String(s) },
            timestampsMs: Array.from({ length: count }, (_, j) => START_MS + (from + j) * STEP_MS),
            values: Array.from(
              { length: count },
              (_, j) => ((Math.imul(s * 7919 + from + j, 0x9e3779b1) >>> 0) % 10_000) / 100,
            ),
          };
        }),
      );
    }
  }
  return out;
}

/** Every batch as `protocol`'s requests, of a metric named by `name` (bench_<name> or bench.<name>, as the protocol names it). */
function requests(protocol: string, batches: WriteSeries[][], name: string): Request[] {
  return batches.map((batch): Request => {
    if (protocol === 'remote_write_1' || protocol === 'remote_write_2') {
      const v2 = protocol === 'remote_write_2';
      return {
        path: '/prometheus/kairosdb/api/v1/write',
        headers: {
          'content-encoding': 'snappy',
          'content-type': v2 ? 'application/x-protobuf;proto=io.prometheus.write.v2.Request' : 'application/x-protobuf',
        },
        body: snappy.compress(
          v2 ? encodeWriteRequestV2(renamed(batch, name)) : encodeWriteRequestV1(renamed(batch, name)),
        ),
      };
    }
    if (protocol === 'line_protocol') {
      const lines: string[] = [];
      for (const s of batch)
        for (const [k, t] of s.timestampsMs.entries())
          lines.push(`bench,host=${s.labels['host']},cpu=${s.labels['cpu']} ${name}=${s.values[k]} ${t}`);
      return {
        path: '/write?precision=ms',
        headers: { 'content-encoding': 'gzip' },
        body: gzipSync(lines.join('\n')),
      };
    }
    const json = batch.map((s) => ({
      name: `bench.${name}`,
      tags: { host: s.labels['host'], cpu: s.labels['cpu'] },
      datapoints: s.timestampsMs.map((t, k) => [t, s.values[k]]),
    }));
    if (protocol === 'kairosdb_rest_plain')
      return {
        path: '/api/v1/datapoints',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(json)),
      };
    return {
      path: '/api/v1/datapoints',
      headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
      body: gzipSync(JSON.stringify(json)),
    };
  });
}

/** Seconds to send every request, CONCURRENCY at a time, to `url`, each answered 204. */
async function send(url: string, all: readonly Request[]): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < all.length) {
        const request = all[next++]!;
        const response = await fetch(`${url}${request.path}`, {
          method: 'POST',
          headers: request.headers,
          body: Buffer.from(request.body),
        });
        if (response.status !== 204) throw new Error(`${request.path}: ${response.status} ${await response.text()}`);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

interface Run {
  /** From the first request to the last answer. */
  readonly seconds: number;
  /** From the first request until the Cassandra node was quiet again (the answers' time without one). */
  readonly settledSeconds: number;
  /** The server's CPU and the Cassandra node's (0 without one), until the node was quiet again. */
  readonly cpuSeconds: number;
  readonly storeCpuSeconds: number;
  /** What the server had written to storage meanwhile (0 for a reused server). */
  readonly diskBytes: number;
}

/**
 * Sends every request to the server at `url` (process `pid`), measuring its CPU and the Cassandra node's. KairosDB
 * answers once its points are queued and writes them after, and a node flushes what it took after the answers too:
 * with a node, both CPUs are counted until it is quiet again, and so is the run's settled time.
 */
async function run(url: string, pid: number, all: readonly Request[], nodePid = 0): Promise<Run> {
  // A reused server (KAIROGRAPH_CASSANDRA, KAIROGRAPH_KAIROSDB) has no pid here: its CPU is not measured.
  const cpuOf = (of: number) => (of === 0 ? 0 : cpuSeconds(of));
  const diskOf = (of: number) => (of === 0 ? 0 : diskWriteBytes(of));
  if (nodePid !== 0) await quiet(nodePid);
  const cpuBefore = cpuOf(pid);
  const diskBefore = diskOf(pid);
  const storeBefore = cpuOf(nodePid);
  const started = performance.now();
  const seconds = await send(url, all);
  const settledSeconds = nodePid === 0 ? seconds : (performance.now() - started) / 1000 + (await quiet(nodePid));
  return {
    seconds,
    settledSeconds,
    cpuSeconds: cpuOf(pid) - cpuBefore,
    storeCpuSeconds: cpuOf(nodePid) - storeBefore,
    diskBytes: diskOf(pid) - diskBefore,
  };
}

const QUIET_WINDOW_MS = 250;

/**
 * Waits until the Cassandra node uses less than a tenth of a core over QUIET_WINDOW_MS (at most 60 s); resolves to
 * the seconds it was busy for, up to the start of that quiet window.
 */
async function quiet(nodePid: number): Promise<number> {
  const started = performance.now();
  const until = started + 60_000;
  for (let before = cpuSeconds(nodePid); performance.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_WINDOW_MS));
    const now = cpuSeconds(nodePid);
    if (now - before < QUIET_WINDOW_MS / 10_000)
      return Math.max(0, performance.now() - started - QUIET_WINDOW_MS) / 1000;
    before = now;
  }
  return (performance.now() - started) / 1000;
}

/** µs of CPU a point, the server's and the node's, and the server's bytes written to storage, of the median run. */
function cpuPerPoint(runs: readonly Run[]): string {
  const us = (seconds: number) => ((seconds / total) * 1e6).toFixed(1);
  const disk = median(runs.map((r) => r.diskBytes)) / total;
  const server = `CPU ${us(median(runs.map((r) => r.cpuSeconds)))} µs${disk > 0 ? `, disk writes ${Math.round(disk)} bytes` : ''} a point`;
  const node = median(runs.map((r) => r.storeCpuSeconds));
  return node === 0 ? server : `${server}, Cassandra's ${us(node)} µs`;
}

const total = SERIES * POINTS;
console.log(
  `npm run bench:ingest -- --series ${SERIES} --points ${POINTS} --request-points ${REQUEST_POINTS} --concurrency ${CONCURRENCY} --runs ${RUNS} --stores ${STORES.join(',')}`,
);
console.log(
  `load average (1, 5, 15 min) at the start: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}`,
);
console.log(`dataset: ${SERIES} series × ${POINTS} points = ${total} points per protocol and run`);
const batches = slices();
const BATCHES = batches.length;
if (BUILD) buildGateway(DIR);
const ALL_PROTOCOLS = ['remote_write_1', 'remote_write_2', 'line_protocol', 'kairosdb_rest'];
// One protocol alone makes a profile of its path; REST JSON stays, the baseline of the embedded ratios.
const PROTOCOLS = [...new Set([...(args.get('protocols')?.split(',') ?? ALL_PROTOCOLS), 'kairosdb_rest'])].filter(
  (name) => name !== '',
);
const unknown = PROTOCOLS.filter((name) => !ALL_PROTOCOLS.includes(name));
if (unknown.length > 0) throw new Error(`--protocols: ${unknown.join(', ')} is none of ${ALL_PROTOCOLS.join(', ')}`);

/** What a run sends where: a protocol's requests to a server (its pid, for its CPU). */
interface Target {
  readonly protocol: string;
  readonly url: string;
  readonly pid: number;
}

/**
 * Points/s of each target, medians of RUNS. Servers stay up across runs, warm as long-running ones are, and each run
 * writes a metric of its own, so its series are new to the store as a fresh store's would be. Each server gets an
 * untimed run first, so no target pays for cold code or a cold Cassandra node; the targets take turns within each
 * run, so what warms up or slows down over time (a node's flushes and compactions) is spread over all of them.
 */
async function measure(storeName: string, targets: ReadonlyMap<string, Target>, nodePid = 0) {
  const warmed = new Set<number>();
  for (const { protocol, url, pid } of targets.values()) {
    if (warmed.has(pid)) continue;
    warmed.add(pid);
    await run(url, pid, requests(protocol, batches, `warmup_${pid}`), nodePid);
  }
  const runs = new Map<string, Run[]>([...targets.keys()].map((name) => [name, []]));
  for (let r = 0; r < RUNS; r++)
    for (const [name, { protocol, url, pid }] of targets)
      runs.get(name)!.push(await run(url, pid, requests(protocol, batches, `${name}_${r}`), nodePid));
  const rates = new Map<string, { answered: number; settled: number }>();
  for (const [name, of] of runs) {
    const seconds = median(of.map((r) => r.seconds));
    const settled = total / median(of.map((r) => r.settledSeconds));
    rates.set(name, { answered: total / seconds, settled });
    const untilQuiet = nodePid === 0 ? '' : ` (${Math.round(settled)} until the node was quiet)`;
    console.log(
      `${storeName.padEnd(9)} ${name.padEnd(16)} ${BATCHES} requests  median ${seconds.toFixed(2)} s  ${Math.round(total / seconds)} points/s${untilQuiet}  server ${cpuPerPoint(of)}`,
    );
  }
  return rates;
}

/** The gateway as production runs it over the store `env` names, with a target per protocol. */
async function gatewayTargets(
  env: Record<string, string>,
): Promise<{ gateway: GatewayProcess; targets: Map<string, Target> }> {
  const gateway = await startGateway(
    DIR,
    { SEED_DEMO: 'false', MAX_CONCURRENT_REQUESTS: String(CONCURRENCY), ...env },
    undefined,
    CPU_PROF === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', CPU_PROF],
  );
  const targets = new Map(PROTOCOLS.map((protocol) => [protocol, { protocol, url: gateway.url, pid: gateway.pid }]));
  return { gateway, targets };
}

const peakRss = (gateway: GatewayProcess) =>
  `the gateway's peak RSS ${Math.round(memoryKb(gateway.pid, 'VmHWM') / 1024)} MiB`;

try {
  if (STORES.includes('embedded')) {
    const { gateway, targets } = await gatewayTargets({ STORE: 'embedded', DATA_DIR: tempDir() });
    try {
      const rates = await measure('embedded', targets);
      console.log(`embedded  ${peakRss(gateway)}`);
      for (const protocol of PROTOCOLS)
        console.log(
          `embedded  ${protocol.padEnd(16)} ×${(rates.get(protocol)!.answered / rates.get('kairosdb_rest')!.answered).toFixed(2)} of Kairograph's REST JSON`,
        );
    } finally {
      await gateway.stop();
    }
  }
  if (STORES.includes('cassandra')) {
    const node = await startCassandra();
    try {
      // KairosDB writes into the gateway's keyspace (the tables are the same), so both meet the same node state.
      const keyspace = `bench_ingest_${Date.now().toString(36)}`;
      const { gateway, targets } = await gatewayTargets({
        STORE: 'cassandra',
        CASSANDRA_CONTACT_POINTS: node.contactPoint,
        CASSANDRA_LOCAL_DC: node.localDataCenter,
        CASSANDRA_KEYSPACE: keyspace,
      });
      const kairosdb = await startKairosDB({ cassandra: node.contactPoint, keyspace });
      try {
        // KairosDB gets the REST requests as plain JSON (its gzip is a content type of its own).
        targets.set('kairosdb_1.3', { protocol: 'kairosdb_rest_plain', url: kairosdb.url, pid: kairosdb.pid });
        const rates = await measure('cassandra', targets, node.pid);
        console.log(`cassandra ${peakRss(gateway)}`);
        for (const protocol of PROTOCOLS)
          console.log(
            `cassandra ${protocol.padEnd(16)} ×${(rates.get(protocol)!.answered / rates.get('kairosdb_1.3')!.answered).toFixed(2)} of KairosDB's REST ingest answered, ×${(rates.get(protocol)!.settled / rates.get('kairosdb_1.3')!.settled).toFixed(2)} until the node was quiet`,
          );
      } finally {
        await kairosdb.stop();
        await gateway.stop();
      }
    } finally {
      await node.stop();
    }
  }
} finally {
  removeTempDirs();
}
