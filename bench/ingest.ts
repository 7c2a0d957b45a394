/**
 * Ingest throughput per protocol through a real gateway over 127.0.0.1: the same points sent as Prometheus remote write
 * 1.0 and 2.0 (snappy protobuf, as Prometheus sends them), InfluxDB line protocol (gzip, as Telegraf sends it) and
 * KairosDB's REST JSON (gzip), each into a fresh store (the embedded store, and with `--stores ...,cassandra` a fresh
 * keyspace of a Cassandra the benchmark boots), with the process's peak RSS. On Cassandra, real KairosDB 1.3 takes the
 * same REST requests into a keyspace of the same node in the same run: the baseline of the issue's ×3.
 *
 *   npm run bench:ingest -- [--series 1000 --points 100 --request-points 2000 --concurrency 4 --runs 3
 *                            --stores embedded,cassandra]
 */
import { loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import { pino } from 'pino';
import snappy from 'snappyjs';
import { loadConfig } from '../src/gateway/config.js';
import { createGateway, listen } from '../src/gateway/create-gateway.js';
import { primaryOnly } from '../src/sources/open-sources.js';
import { EmbeddedStore } from '../src/store/embedded/embedded-store.js';
import { CassandraStore } from '../src/store/cassandra/cassandra-store.js';
import type { Store } from '../src/store/store.js';
import { startCassandra } from '../test/support/cassandra-server.js';
import { startKairosDB } from '../test/support/kairosdb-server.js';
import { encodeWriteRequestV1, encodeWriteRequestV2, type WriteSeries } from '../test/support/remote-write.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const SERIES = Number(args.get('series') ?? 1000);
const POINTS = Number(args.get('points') ?? 100);
const REQUEST_POINTS = Number(args.get('request-points') ?? 2000);
const CONCURRENCY = Number(args.get('concurrency') ?? 4);
const RUNS = Number(args.get('runs') ?? 3);
const STORES = (args.get('stores') ?? 'embedded').split(',').filter((name) => name !== '');
const START_MS = Date.UTC(2026, 0, 1);
const STEP_MS = 15_000;

interface Request {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
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

function requests(protocol: string, batches: WriteSeries[][], metric = 'bench.ingest'): Request[] {
  return batches.map((batch): Request => {
    if (protocol === 'remote_write_1' || protocol === 'remote_write_2') {
      const v2 = protocol === 'remote_write_2';
      return {
        path: '/prometheus/kairosdb/api/v1/write',
        headers: {
          'content-encoding': 'snappy',
          'content-type': v2 ? 'application/x-protobuf;proto=io.prometheus.write.v2.Request' : 'application/x-protobuf',
        },
        body: snappy.compress(v2 ? encodeWriteRequestV2(batch) : encodeWriteRequestV1(batch)),
      };
    }
    if (protocol === 'line_protocol') {
      const lines: string[] = [];
      for (const s of batch)
        for (const [k, t] of s.timestampsMs.entries())
          lines.push(`bench,host=${s.labels['host']},cpu=${s.labels['cpu']} ingest=${s.values[k]} ${t}`);
      return {
        path: '/write?precision=ms',
        headers: { 'content-encoding': 'gzip' },
        body: gzipSync(lines.join('\n')),
      };
    }
    const json = batch.map((s) => ({
      name: metric,
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

/** Seconds to send every request into a fresh gateway over `store`, which it closes after. */
async function run(all: readonly Request[], store: Store): Promise<number> {
  const config = loadConfig({ SEED_DEMO: 'false', MAX_CONCURRENT_REQUESTS: String(CONCURRENCY) });
  const gateway = createGateway({
    sources: primaryOnly(config.primarySourceName, store),
    config,
    log: pino({ level: 'silent' }),
  });
  const server = await listen(gateway.handle, '127.0.0.1', 0, { requestTimeoutMs: config.queryTimeoutMs });
  try {
    return await send(server.url, all);
  } finally {
    await server.close();
    await store.close();
  }
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
const PROTOCOLS = ['remote_write_1', 'remote_write_2', 'line_protocol', 'kairosdb_rest'];

/**
 * Points/s of each protocol into fresh stores that `open` makes, medians of RUNS. One untimed run first, so the first
 * protocol does not pay for a cold store (a freshly booted Cassandra costs about twice the CPU per point at first),
 * and the protocols take turns within each run, so what warms up or slows down over time is spread over all of them.
 */
async function measure(storeName: string, open: (protocol: string, r: number) => Promise<Store>) {
  const all = new Map(PROTOCOLS.map((protocol) => [protocol, requests(protocol, batches)]));
  await run(all.get('kairosdb_rest')!, await open('warmup', 0));
  const seconds = new Map<string, number[]>(PROTOCOLS.map((protocol) => [protocol, []]));
  for (let r = 0; r < RUNS; r++)
    for (const protocol of PROTOCOLS)
      seconds.get(protocol)!.push(await run(all.get(protocol)!, await open(protocol, r)));
  const rates: Record<string, number> = {};
  for (const protocol of PROTOCOLS) {
    const mid = median(seconds.get(protocol)!);
    rates[protocol] = total / mid;
    console.log(
      `${storeName.padEnd(9)} ${protocol.padEnd(16)} ${all.get(protocol)!.length} requests  median ${mid.toFixed(2)} s  ${Math.round(rates[protocol]!)} points/s`,
    );
  }
  return rates;
}

try {
  if (STORES.includes('embedded')) {
    const rates = await measure('embedded', async () => EmbeddedStore.open({ path: tempDir() }));
    for (const protocol of PROTOCOLS)
      console.log(
        `embedded  ${protocol.padEnd(16)} ×${(rates[protocol]! / rates['kairosdb_rest']!).toFixed(2)} of Kairograph's REST JSON`,
      );
  }
  if (STORES.includes('cassandra')) {
    const node = await startCassandra();
    try {
      const stamp = Date.now().toString(36);
      const rates = await measure('cassandra', (protocol, r) =>
        CassandraStore.open({
          contactPoints: [node.contactPoint],
          localDataCenter: node.localDataCenter,
          keyspace: `bench_ingest_${protocol}_${r}_${stamp}`,
        }),
      );
      // KairosDB on the same node: the REST requests, plain JSON (its gzip is a content type of its own).
      const plain = requests('kairosdb_rest_plain', batches);
      const warmup = requests('kairosdb_rest_plain', batches, 'bench.warmup');
      const seconds: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        const kairosdb = await startKairosDB({
          cassandra: node.contactPoint,
          keyspace: `bench_ingest_kdb_${r}_${stamp}`,
        });
        try {
          // Untimed, under another metric: its JVM warm as the gateway's process is, its row key cache still cold.
          await send(kairosdb.url, warmup);
          seconds.push(await send(kairosdb.url, plain));
        } finally {
          await kairosdb.stop();
        }
      }
      const kairos = total / median(seconds);
      console.log(
        `cassandra KairosDB 1.3 REST JSON ${plain.length} requests  median ${median(seconds).toFixed(2)} s  ${Math.round(kairos)} points/s`,
      );
      for (const protocol of PROTOCOLS)
        console.log(
          `cassandra ${protocol.padEnd(16)} ×${(rates[protocol]! / kairos).toFixed(2)} of KairosDB's REST ingest`,
        );
    } finally {
      await node.stop();
    }
  }
  console.log(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);
} finally {
  removeTempDirs();
}
