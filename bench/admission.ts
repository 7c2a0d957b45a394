/**
 * What admission control's defaults rest on, measured against the production build (embedded store, demo dataset):
 * N clients each send heavy requests back to back (3 days of the 4 demo metrics as 1-minute averages per host,
 * GraphQL and REST in turn), while a worker thread probes /health every 10 ms and a small query every 100 ms.
 * First with admission out of the way (MAX_CONCURRENT_REQUESTS=10000) at each N: throughput, latency, CPU per
 * request, probes, peak RSS. Then with given limits under more clients than they admit: what is refused, what the
 * admitted get. Clients honour Retry-After, as a well-behaved client does.
 *
 * `--heavy rest40` sends the fairness benchmark's heaviest request instead (REST, the 4 metrics ten times over, a
 * large answer), to show what happens when running requests together would pass the time limit.
 *
 *   npm run bench:admission [-- --seconds 20 --clients 1,2,4,8,16 --limits 4/32,2/16 --overload 16,32 --heavy dashboard]
 */
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build, startDemoServer, type DemoServer } from './demo-server.js';
import { productionNodeArgs } from './gateway-process.js';
import { median, parseArgs, percentile } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const SECONDS = Number(args.get('seconds') ?? 20);
const CLIENTS = (args.get('clients') ?? '1,2,4,8,16').split(',').map(Number);
const LIMITS = (args.get('limits') ?? '4/32').split(',').map((pair) => pair.split('/').map(Number) as [number, number]);
const OVERLOAD = (args.get('overload') ?? '16,32').split(',').map(Number);
const HEAVY = args.get('heavy') ?? 'dashboard';
const DIR = fileURLToPath(new URL('..', import.meta.url));

const METRICS = ['system.cpu.usage', 'system.memory.used', 'http.request.latency', 'http.requests'];
const HEAVY_GRAPHQL = `{ ${METRICS.map((m, i) => `m${i}: series(metric: "${m}", from: "now-3d", groupBy: { tags: ["host"] }, aggregators: [{ avg: { sampling: { value: 1, unit: MINUTES } } }]) { host: tag(name: "host") points { epochMs value } }`).join('\n')} }`;
const HEAVY_REST = {
  start_relative: { value: 3, unit: 'days' },
  metrics: METRICS.map((name) => ({
    name,
    group_by: [{ name: 'tag', tags: ['host'] }],
    aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'minutes' } }],
  })),
};
const REST_40 = { ...HEAVY_REST, metrics: Array.from({ length: 10 }, () => HEAVY_REST.metrics).flat() };
const SMALL_GRAPHQL = `{ series(metric: "system.cpu.usage", from: "now-10m", groupBy: { tags: ["host"] }, aggregators: [{ max: { sampling: { value: 1, unit: MINUTES } } }]) { points { value } } }`;
/** The probes' own thread: this one receives the heavy answers, and a probe timed here would count that work. */
const PROBER = `
const { parentPort, workerData: { url, small: query } } = require('node:worker_threads');
let done = false;
parentPort.once('message', () => (done = true));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const loop = async (every, send, into) => {
  while (!done) { const t = performance.now(); const status = await send(); into.push([performance.now() - t, status]); await sleep(every); }
};
const health = [], small = [];
const get = (path, init) => fetch(url + path, init).then(async (r) => { await r.arrayBuffer(); return r.status; });
Promise.all([
  loop(10, () => get('/health'), health),
  loop(100, () => get('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query }) }), small),
]).then(() => parentPort.postMessage({ health, small }));
`;

interface Outcome {
  readonly status: number;
  readonly ms: number;
  readonly retryAfterS: number;
}

console.log(
  `command: npm run bench:admission -- --seconds ${SECONDS} --clients ${CLIENTS.join(',')} --limits ${LIMITS.map((l) => l.join('/')).join(',')} --overload ${OVERLOAD.join(',')} --heavy ${HEAVY}`,
);
console.log(
  `server: node ${productionNodeArgs(DIR).join(' ')} dist/main.js (embedded store, demo dataset, LOG_LEVEL=info); node ${process.version}; ${new Date().toISOString()}`,
);
console.log(
  HEAVY === 'rest40'
    ? `heavy request: REST, 3 days of the ${METRICS.length} metrics ten times over, 1-minute averages per host; clients send Accept-Encoding: identity`
    : `heavy request: 3 days of ${METRICS.length} metrics, 1-minute averages per host (GraphQL: ${METRICS.length} aliases; REST: ${METRICS.length} metrics), in turn; clients send Accept-Encoding: identity`,
);
build(DIR);

console.log('\nadmission out of the way (MAX_CONCURRENT_REQUESTS=10000):');
const free = await startDemoServer(DIR, { MAX_CONCURRENT_REQUESTS: '10000', MAX_QUEUED_REQUESTS: '0' });
try {
  await load(free, 1, 3); // warm-up: JIT, page cache
  for (const clients of CLIENTS) report(clients, await load(free, clients, SECONDS));
} finally {
  await free.stop();
}

for (const [running, queued] of LIMITS) {
  console.log(`\nMAX_CONCURRENT_REQUESTS=${running}, MAX_QUEUED_REQUESTS=${queued}:`);
  const limited = await startDemoServer(DIR, {
    MAX_CONCURRENT_REQUESTS: String(running),
    MAX_QUEUED_REQUESTS: String(queued),
  });
  try {
    await load(limited, 1, 3);
    for (const clients of OVERLOAD) report(clients, await load(limited, clients, SECONDS));
  } finally {
    await limited.stop();
  }
}

interface LoadResult {
  readonly outcomes: Outcome[];
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  readonly health: [number, number][];
  readonly small: [number, number][];
}

/** `clients` closed-loop clients for `seconds` (requests under way at the end are waited for). */
async function load(server: DemoServer, clients: number, seconds: number): Promise<LoadResult> {
  const prober = new Worker(PROBER, { eval: true, workerData: { url: server.url, small: SMALL_GRAPHQL } });
  let peakRssKb = server.rssKb();
  const sampler = setInterval(() => (peakRssKb = Math.max(peakRssKb, server.rssKb())), 50);
  const cpuBefore = server.cpuMs();
  const started = performance.now();
  const until = started + seconds * 1000;
  const outcomes: Outcome[] = [];
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = client; performance.now() < until; i++) {
        const outcome = await (HEAVY === 'rest40'
          ? rest(server.url, REST_40)
          : i % 2 === 0
            ? graphql(server.url, HEAVY_GRAPHQL)
            : rest(server.url, HEAVY_REST));
        outcomes.push(outcome);
        if (outcome.status === 503)
          await sleep(Math.min(outcome.retryAfterS * 1000, Math.max(0, until - performance.now())));
      }
    }),
  );
  const wallMs = performance.now() - started;
  const cpuMs = server.cpuMs() - cpuBefore;
  clearInterval(sampler);
  prober.postMessage('stop');
  const [{ health, small }] = (await once(prober, 'message')) as [
    { health: [number, number][]; small: [number, number][] },
  ];
  await prober.terminate();
  return { outcomes, wallMs, cpuMs, peakRssMb: peakRssKb / 1024, health, small };
}

function report(clients: number, r: LoadResult): void {
  const ok = r.outcomes.filter((o) => o.status === 200);
  const counts = countBy(r.outcomes.map((o) => o.status));
  const okMs = ok.map((o) => o.ms);
  const refusedMs = r.outcomes.filter((o) => o.status === 503).map((o) => o.ms);
  const health = r.health.map(([ms]) => ms);
  const small = r.small.map(([ms]) => ms);
  console.log(
    `  ${String(clients).padStart(2)} clients: ${statusText(counts)} in ${(r.wallMs / 1000).toFixed(1)} s = ${((ok.length * 1000) / r.wallMs).toFixed(2)} answered/s; ` +
      `answered in p50 ${fmt(okMs.length ? median(okMs) : Number.NaN)} p99 ${fmt(okMs.length ? percentile(okMs, 0.99) : Number.NaN)} ms` +
      (refusedMs.length ? `, refused in p50 ${fmt(median(refusedMs))} ms` : '') +
      `; server CPU ${ok.length ? fmt(r.cpuMs / ok.length) : '-'} ms per answer; /health p50 ${fmt(median(health))} p99 ${fmt(percentile(health, 0.99))} max ${fmt(Math.max(...health))} ms; ` +
      `small query ${statusText(countBy(r.small.map(([, status]) => status)))} p50 ${fmt(median(small))} p99 ${fmt(percentile(small, 0.99))} ms; peak RSS ${r.peakRssMb.toFixed(0)} MB`,
  );
}

async function graphql(url: string, query: string): Promise<Outcome> {
  return timed(() =>
    fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'identity' },
      body: JSON.stringify({ query }),
    }),
  );
}

async function rest(url: string, body: unknown): Promise<Outcome> {
  return timed(() =>
    fetch(`${url}/api/v1/datapoints/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-encoding': 'identity' },
      body: JSON.stringify(body),
    }),
  );
}

async function timed(send: () => Promise<Response>): Promise<Outcome> {
  const started = performance.now();
  const response = await send();
  await response.arrayBuffer();
  return {
    status: response.status,
    ms: performance.now() - started,
    retryAfterS: Number(response.headers.get('retry-after') ?? 0),
  };
}

function countBy(values: readonly number[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

function statusText(counts: Map<number, number>): string {
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${n}×${status}`)
    .join(' ');
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

function fmt(ms: number): string {
  return Number.isNaN(ms) ? '-' : ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}
