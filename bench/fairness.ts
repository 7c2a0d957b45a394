/**
 * Fairness and memory under hostile load, against the production build (`node dist/main.js`: embedded store, demo
 * dataset) in its own process: /health and a small query probed while 8 heavy queries run at once (the same probes
 * on the idle server, in the same run, are the baseline), the server's peak RSS, and the attacks issue 10 found:
 * 120 aliases of 3 days of raw points in one GraphQL request, and a catastrophic regex tag filter. The memory
 * ceiling of one request at the default budgets is measured on a fresh server each: peak RSS above idle.
 *
 *   npm run bench:fairness [-- --runs 3 --server-dir <a built checkout to measure instead of this one>]
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildGateway, memoryKb, productionNodeArgs, startGateway, type GatewayProcess } from './gateway-process.js';
import { median, parseArgs, percentile } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const RUNS = Number(args.get('runs') ?? 3);
const SERVER_DIR = resolve(args.get('server-dir') ?? fileURLToPath(new URL('..', import.meta.url)));
/** The server's folder as the record shows it: relative to where the benchmark runs, never this machine's own path. */
const shownDir = relative(process.cwd(), SERVER_DIR) || '.';
const PROBE_EVERY_MS = 10;
const SMALL_EVERY_MS = 100;

const DEMO_METRICS = ['system.cpu.usage', 'system.memory.used', 'http.request.latency', 'http.requests'];
/** The issue's heavy REST query: the 4 demo metrics ten times over, 3 days, 1-minute averages per host. */
const HEAVY_REST = {
  start_relative: { value: 3, unit: 'days' },
  metrics: Array.from({ length: 10 }, () => DEMO_METRICS)
    .flat()
    .map((name) => ({
      name,
      group_by: [{ name: 'tag', tags: ['host'] }],
      aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'minutes' } }],
    })),
};
/** A heavy answer: 6 aliases of 3 days of raw points of 6 hosts (933,120 points, under MAX_REQUEST_POINTS). */
const HEAVY_GRAPHQL = `{ ${Array.from({ length: 6 }, (_, i) => `a${i}: series(metric: "system.cpu.usage", from: "now-3d") { points { epochMs value } }`).join('\n')} }`;
const SMALL_GRAPHQL = `{ series(metric: "system.cpu.usage", from: "now-10m", groupBy: { tags: ["host"] }, aggregators: [{ max: { sampling: { value: 1, unit: MINUTES } } }]) { points { value } } }`;
const ALIASES_120 = `{ ${Array.from({ length: 120 }, (_, i) => `a${i}: series(metric: "system.cpu.usage", from: "now-3d") { points { epochMs value } }`).join('\n')} }`;
const EVIL_VALUE = `${'a'.repeat(31)}!`;
/** The probes' own thread (probeWhile). */
const PROBER = `
const { parentPort, workerData: { url, healthEvery, smallEvery, small: query } } = require('node:worker_threads');
let done = false;
parentPort.once('message', () => (done = true));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const loop = async (every, send, into) => { while (!done) { const t = performance.now(); await send(); into.push(performance.now() - t); await sleep(every); } };
const health = [], small = [];
Promise.all([
  loop(healthEvery, () => fetch(url + '/health').then((r) => r.arrayBuffer()), health),
  loop(smallEvery, () => fetch(url + '/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) }).then((r) => r.arrayBuffer()), small),
]).then(() => parentPort.postMessage({ health, small }));
`;

console.log(
  `command: npm run bench:fairness -- --runs ${RUNS}${args.has('server-dir') ? ` --server-dir ${shownDir}` : ''}`,
);
console.log(
  `server: node ${productionNodeArgs(SERVER_DIR).join(' ')} dist/main.js in ${shownDir}; node ${process.version}; ${new Date().toISOString()}`,
);
buildGateway(SERVER_DIR);
let dataDir = '';
let server: GatewayProcess;
let seededOnce = false;

// One request at the default budgets on a fresh server: the most a request may hold is what it holds here.
const RAW_REST = {
  start_relative: { value: 3, unit: 'days' },
  metrics: ['system.cpu.usage', 'system.memory.used'].flatMap((name) => [{ name }, { name }, { name }]),
};
for (const [label, expected, send] of [
  ['GraphQL, 933,120 points', 200, () => graphql(HEAVY_GRAPHQL)],
  ['REST, 933,120 points', 200, () => call('POST', '/api/v1/datapoints/query', RAW_REST)],
  ['GraphQL, 120 aliases of 155,520 points (refused)', 422, () => graphql(ALIASES_120)],
] as const) {
  const peaks: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    await withServer(async () => {
      const idle = rssKb();
      const { value, peakRssKb } = await probeWhile(send());
      if (value.status !== expected) throw new Error(`${label}: ${value.status} ${value.code}`);
      peaks.push((peakRssKb - idle) / 1024);
    });
  }
  console.log(
    `one request on a fresh server, ${label}: peak RSS above idle ${peaks.map((p) => p.toFixed(0)).join(', ')} MB (median ${median(peaks).toFixed(0)})`,
  );
}

await withServer(async () => {
  // The regex attack needs a series whose tag value makes a backtracking matcher explode.
  await call('POST', '/api/v1/datapoints', [
    { name: 'evil', tags: { k: EVIL_VALUE }, datapoints: [[Date.now() - 60_000, 1]] },
  ]);
  const results: Record<string, number[]> = {};
  const add = (name: string, value: number) => (results[name] ??= []).push(value);
  for (let run = 1; run <= RUNS; run++) {
    const idle = await probeWhile(sleep(2_000));
    const rssBefore = rssKb();
    const heavy = probeWhile(
      Promise.all([
        ...Array.from({ length: 6 }, () => call('POST', '/api/v1/datapoints/query', HEAVY_REST)),
        ...Array.from({ length: 2 }, () => graphql(HEAVY_GRAPHQL)),
      ]),
    );
    const loaded = await heavy;
    const heavyAnswers = loaded.value;
    const attack = await probeWhile(graphql(ALIASES_120));
    const regexRest = await call('POST', '/api/v1/datapoints/query', {
      start_relative: { value: 1, unit: 'hours' },
      metrics: [{ name: 'evil', tags: { k: ['regex:(a+)+$'] } }],
    });
    const regexGraphql = await graphql(
      `{ series(metric: "evil", from: "now-1h", where: [{ tag: "k", regex: "(a+)+$" }]) { points { value } } }`,
    );
    console.log(
      `run ${run}: idle /health p50 ${fmt(percentile(idle.health, 0.5))} p99 ${fmt(percentile(idle.health, 0.99))} ms | ` +
        `8 heavy: ${heavyAnswers.map((a) => `${a.status}/${(a.ms / 1000).toFixed(1)}s`).join(' ')} | ` +
        `/health p50 ${fmt(percentile(loaded.health, 0.5))} p99 ${fmt(percentile(loaded.health, 0.99))} max ${fmt(Math.max(...loaded.health))} ms (${loaded.health.length} probes), ` +
        `small query p50 ${fmt(percentile(loaded.small, 0.5))} p99 ${fmt(percentile(loaded.small, 0.99))} ms | RSS ${mb(rssBefore)} → peak ${mb(loaded.peakRssKb)} MB | ` +
        `120 aliases: ${attack.value.status} ${attack.value.code} in ${(attack.value.ms / 1000).toFixed(2)} s, peak RSS ${mb(attack.peakRssKb)} MB, /health max ${fmt(Math.max(...attack.health))} ms | ` +
        `regex: REST ${regexRest.status} in ${fmt(regexRest.ms)} ms, GraphQL ${regexGraphql.status} in ${fmt(regexGraphql.ms)} ms`,
    );
    add('idle health p99', percentile(idle.health, 0.99));
    add('loaded health p50', percentile(loaded.health, 0.5));
    add('loaded health p99', percentile(loaded.health, 0.99));
    add('loaded health max', Math.max(...loaded.health));
    add('loaded small p50', percentile(loaded.small, 0.5));
    add('loaded small p99', percentile(loaded.small, 0.99));
    add('heavy slowest s', Math.max(...heavyAnswers.map((a) => a.ms)) / 1000);
    add('heavy peak RSS MB', loaded.peakRssKb / 1024);
    add('120 aliases s', attack.value.ms / 1000);
    add('120 aliases peak RSS MB', attack.peakRssKb / 1024);
    add('regex REST ms', regexRest.ms);
    add('regex GraphQL ms', regexGraphql.ms);
  }
  console.log(`\nmedians of ${RUNS} runs:`);
  for (const [name, values] of Object.entries(results)) console.log(`  ${name.padEnd(26)} ${fmt(median(values))}`);
  console.log(
    `  ratio loaded/idle /health p99 ${(median(results['loaded health p99']!) / median(results['idle health p99']!)).toFixed(1)}`,
  );
  console.log(`  server peak RSS over the whole run (VmHWM) ${mb(hwmKb())} MB`);
});

/** Runs `measure` against a fresh server with a fresh demo dataset. */
async function withServer(measure: () => Promise<void>): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), 'kairograph-fairness-'));
  server = await startServer();
  try {
    await measure();
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function startServer(): Promise<GatewayProcess> {
  return startGateway(SERVER_DIR, { DATA_DIR: dataDir, SEED_DEMO: 'true' }, (entry) => {
    if (String(entry['msg']).startsWith('seeded') && !seededOnce)
      console.log(`demo data: ${entry['points']} points seeded in ${entry['ms']} ms`);
    if (String(entry['msg']).startsWith('seeded')) seededOnce = true;
  });
}

interface Answer {
  readonly status: number;
  readonly code: string;
  readonly ms: number;
}

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  await response.arrayBuffer();
  return { status: response.status, code: '', ms: performance.now() - started };
}

async function graphql(query: string): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
  return { status: response.status, code: body.errors?.[0]?.extensions?.code ?? 'OK', ms: performance.now() - started };
}

/**
 * Probes /health every 10 ms and a small query every 100 ms until `work` settles, from a worker thread: this thread
 * parses the heavy answers, and a probe timed here would count that as the server's latency. Samples the server's RSS.
 */
async function probeWhile<T>(
  work: Promise<T>,
): Promise<{ value: T; health: number[]; small: number[]; peakRssKb: number }> {
  const prober = new Worker(PROBER, {
    eval: true,
    workerData: { url: server.url, healthEvery: PROBE_EVERY_MS, smallEvery: SMALL_EVERY_MS, small: SMALL_GRAPHQL },
  });
  let peakRssKb = rssKb();
  const sampler = setInterval(() => (peakRssKb = Math.max(peakRssKb, rssKb())), 20);
  try {
    const value = await work;
    peakRssKb = Math.max(peakRssKb, rssKb());
    prober.postMessage('stop');
    const [{ health, small }] = (await once(prober, 'message')) as [{ health: number[]; small: number[] }];
    return { value, health, small, peakRssKb };
  } finally {
    clearInterval(sampler);
    await prober.terminate();
  }
}

function rssKb(): number {
  return memoryKb(server.pid, 'VmRSS');
}

function hwmKb(): number {
  return memoryKb(server.pid, 'VmHWM');
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

function mb(kb: number): string {
  return (kb / 1024).toFixed(0);
}
