/**
 * Ingest throughput per protocol: the same points sent as Prometheus remote write 1.0 and 2.0 (snappy protobuf, as
 * Prometheus sends them), InfluxDB line protocol (gzip, as Telegraf sends it) and KairosDB's REST JSON (gzip), each
 * into a fresh store (the embedded store, and with `--stores ...,cassandra` a fresh keyspace of a Cassandra the
 * benchmark boots). The gateway runs as production runs it, compiled, in a process of its own
 * (bench/gateway-process.ts), so its CPU and peak RSS are its own and the senders (this process) do not share its
 * thread. On Cassandra, real KairosDB 1.3 takes the same REST requests into a keyspace of the same node in the same
 * run: the baseline of the issue's ×3.
 *
 *   npm run bench:ingest -- [--series 1000 --points 100 --request-points 2000 --concurrency 4 --runs 3
 *                            --stores embedded,cassandra --build true]
 */
import { loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import snappy from 'snappyjs';
import { fileURLToPath } from 'node:url';
import { startCassandra } from '../test/support/cassandra-server.js';
import { startKairosDB } from '../test/support/kairosdb-server.js';
import { encodeWriteRequestV1, encodeWriteRequestV2, type WriteSeries } from '../test/support/remote-write.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { buildGateway, cpuSeconds, type GatewayProcess, memoryKb, startGateway } from './gateway-process.js';
import { median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const SERIES = Number(args.get('series') ?? 1000);
const POINTS = Number(args.get('points') ?? 100);
const REQUEST_POINTS = Number(args.get('request-points') ?? 2000);
const CONCURRENCY = Number(args.get('concurrency') ?? 4);
const RUNS = Number(args.get('runs') ?? 3);
const STORES = (args.get('stores') ?? 'embedded').split(',').filter((name) => name !== '');
const BUILD = args.get('build') !== 'false';
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

/** Requests of REQUEST_POINTS points each, in time order across all series, as a collector flushes them. */
function slices(): WriteSeries[][] {
  const perRequest = Math.max(1, Math.floor(REQUEST_POINTS / SERIES));
  const out: WriteSeries[][] = [];
  for (let from = 0; from < POINTS; from += perRequest) {
    const count = Math.min(perRequest, POINTS - from);
    out.push(
      Array.from({ length: SERIES }, (_, s) => ({
        labels: { __name__: 'bench_ingest', host: `host-${s % 100}`, cpu: String(s) },
        timestampsMs: Array.from({ length: count }, (_, k) => START_MS + (from + k) * STEP_MS),
        values: Array.from(
          { length: count },
          (_, k) => ((Math.imul(s * 7919 + from + k, 0x9e3779b1) >>> 0) % 10_000) / 100,
        ),
      })),
    );
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
  readonly seconds: number;
  /** The gateway's CPU while it took the requests. */
  readonly cpuSeconds: number;
}

/** Sends every request to the gateway, measuring its CPU meanwhile. */
async function run(gateway: GatewayProcess, all: readonly Request[]): Promise<Run> {
  const cpuBefore = cpuSeconds(gateway.pid);
  const seconds = await send(gateway.url, all);
  return { seconds, cpuSeconds: cpuSeconds(gateway.pid) - cpuBefore };
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
const PROTOCOLS = ['remote_write_1', 'remote_write_2', 'line_protocol', 'kairosdb_rest'];

/**
 * Points/s of each protocol through one gateway over the store `env` names, medians of RUNS, and the gateway's peak
 * RSS. Each run writes a metric of its own, so its series are new to the store, as a fresh store's would be, while
 * the process is warm as a long-running gateway is. One untimed run first, so the first protocol does not pay for
 * cold code or a cold Cassandra (which costs about twice the CPU per point at first); the protocols take turns within
 * each run, so what warms up or slows down over time is spread over all of them.
 */
async function measure(storeName: string, env: Record<string, string>) {
  const gateway = await startGateway(DIR, { SEED_DEMO: 'false', MAX_CONCURRENT_REQUESTS: String(CONCURRENCY), ...env });
  const runs = new Map<string, Run[]>(PROTOCOLS.map((protocol) => [protocol, []]));
  let peakKb: number;
  try {
    await run(gateway, requests('kairosdb_rest', batches, 'warmup'));
    for (let r = 0; r < RUNS; r++)
      for (const protocol of PROTOCOLS)
        runs.get(protocol)!.push(await run(gateway, requests(protocol, batches, `${protocol}_${r}`)));
    peakKb = memoryKb(gateway.pid, 'VmHWM');
  } finally {
    await gateway.stop();
  }
  const rates: Record<string, number> = {};
  for (const protocol of PROTOCOLS) {
    const of = runs.get(protocol)!;
    const seconds = median(of.map((r) => r.seconds));
    const cpu = median(of.map((r) => r.cpuSeconds));
    rates[protocol] = total / seconds;
    console.log(
      `${storeName.padEnd(9)} ${protocol.padEnd(16)} ${BATCHES} requests  median ${seconds.toFixed(2)} s  ${Math.round(rates[protocol]!)} points/s  gateway CPU ${((cpu / total) * 1e6).toFixed(1)} µs a point`,
    );
  }
  console.log(`${storeName.padEnd(9)} the gateway's peak RSS ${Math.round(peakKb / 1024)} MiB`);
  return rates;
}

try {
  if (STORES.includes('embedded')) {
    const rates = await measure('embedded', { STORE: 'embedded', DATA_DIR: tempDir() });
    for (const protocol of PROTOCOLS)
      console.log(
        `embedded  ${protocol.padEnd(16)} ×${(rates[protocol]! / rates['kairosdb_rest']!).toFixed(2)} of Kairograph's REST JSON`,
      );
  }
  if (STORES.includes('cassandra')) {
    const node = await startCassandra();
    try {
      const stamp = Date.now().toString(36);
      const rates = await measure('cassandra', {
        STORE: 'cassandra',
        CASSANDRA_CONTACT_POINTS: node.contactPoint,
        CASSANDRA_LOCAL_DC: node.localDataCenter,
        CASSANDRA_KEYSPACE: `bench_ingest_${stamp}`,
      });
      // KairosDB on the same node: the REST requests, plain JSON (its gzip is a content type of its own).
      // Likewise one process, warmed up by an untimed run, a metric of its own per run.
      const kairosdb = await startKairosDB({ cassandra: node.contactPoint, keyspace: `bench_ingest_kdb_${stamp}` });
      const seconds: number[] = [];
      try {
        await send(kairosdb.url, requests('kairosdb_rest_plain', batches, 'warmup'));
        for (let r = 0; r < RUNS; r++)
          seconds.push(await send(kairosdb.url, requests('kairosdb_rest_plain', batches, `kairosdb_${r}`)));
      } finally {
        await kairosdb.stop();
      }
      const kairos = total / median(seconds);
      console.log(
        `cassandra KairosDB 1.3 REST JSON ${BATCHES} requests  median ${median(seconds).toFixed(2)} s  ${Math.round(kairos)} points/s`,
      );
      for (const protocol of PROTOCOLS)
        console.log(
          `cassandra ${protocol.padEnd(16)} ×${(rates[protocol]! / kairos).toFixed(2)} of KairosDB's REST ingest`,
        );
    } finally {
      await node.stop();
    }
  }
} finally {
  removeTempDirs();
}
