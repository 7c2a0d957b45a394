/**
 * Ingest throughput per protocol into the embedded store, through a real gateway over 127.0.0.1: the same points sent
 * as Prometheus remote write 1.0 and 2.0 (snappy protobuf, as Prometheus sends them), InfluxDB line protocol (gzip, as
 * Telegraf sends it) and KairosDB's REST JSON (gzip), each into a fresh store, with the process's peak RSS.
 *
 *   npm run bench:ingest -- [--series 1000 --points 100 --request-points 2000 --concurrency 4 --runs 3]
 */
import { gzipSync } from 'node:zlib';
import { pino } from 'pino';
import snappy from 'snappyjs';
import { loadConfig } from '../src/gateway/config.js';
import { createGateway, listen } from '../src/gateway/create-gateway.js';
import { primaryOnly } from '../src/sources/open-sources.js';
import { EmbeddedStore } from '../src/store/embedded/embedded-store.js';
import { encodeWriteRequestV1, encodeWriteRequestV2, type WriteSeries } from '../test/support/remote-write.js';
import { removeTempDirs, tempDir } from '../test/support/temp-dir.js';
import { median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const SERIES = Number(args.get('series') ?? 1000);
const POINTS = Number(args.get('points') ?? 100);
const REQUEST_POINTS = Number(args.get('request-points') ?? 2000);
const CONCURRENCY = Number(args.get('concurrency') ?? 4);
const RUNS = Number(args.get('runs') ?? 3);
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

function requests(protocol: string, batches: WriteSeries[][]): Request[] {
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
      name: 'bench.ingest',
      tags: { host: s.labels['host'], cpu: s.labels['cpu'] },
      datapoints: s.timestampsMs.map((t, k) => [t, s.values[k]]),
    }));
    return {
      path: '/api/v1/datapoints',
      headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
      body: gzipSync(JSON.stringify(json)),
    };
  });
}

/** Seconds to send every request, CONCURRENCY at a time, into a fresh gateway and store. */
async function run(all: readonly Request[]): Promise<number> {
  const store = await EmbeddedStore.open({ path: tempDir() });
  const config = loadConfig({ SEED_DEMO: 'false', MAX_CONCURRENT_REQUESTS: String(CONCURRENCY) });
  const gateway = createGateway({
    sources: primaryOnly(config.primarySourceName, store),
    config,
    log: pino({ level: 'silent' }),
  });
  const server = await listen(gateway.handle, '127.0.0.1', 0, { requestTimeoutMs: config.queryTimeoutMs });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < all.length) {
        const request = all[next++]!;
        const response = await fetch(`${server.url}${request.path}`, {
          method: 'POST',
          headers: request.headers,
          body: Buffer.from(request.body),
        });
        if (response.status !== 204) throw new Error(`${request.path}: ${response.status} ${await response.text()}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await server.close();
  await store.close();
  return seconds;
}

const total = SERIES * POINTS;
console.log(
  `npm run bench:ingest -- --series ${SERIES} --points ${POINTS} --request-points ${REQUEST_POINTS} --concurrency ${CONCURRENCY} --runs ${RUNS}`,
);
console.log(`dataset: ${SERIES} series × ${POINTS} points = ${total} points per protocol, embedded store`);
const batches = slices();
const rates: Record<string, number> = {};
for (const protocol of ['remote_write_1', 'remote_write_2', 'line_protocol', 'kairosdb_rest']) {
  const all = requests(protocol, batches);
  const seconds: number[] = [];
  for (let r = 0; r < RUNS; r++) seconds.push(await run(all));
  rates[protocol] = total / median(seconds);
  console.log(
    `${protocol.padEnd(16)} ${all.length} requests  median ${median(seconds).toFixed(2)} s  ${Math.round(rates[protocol]!)} points/s`,
  );
}
for (const protocol of Object.keys(rates))
  console.log(
    `${protocol.padEnd(16)} ×${(rates[protocol]! / rates['kairosdb_rest']!).toFixed(2)} of KairosDB REST JSON`,
  );
console.log(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`);
removeTempDirs();
