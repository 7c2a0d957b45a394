/**
 * Fairness and memory under hostile load, against the production build (`node dist/main.js`: embedded store, demo
 * dataset) in its own process: /health and a small query probed while 8 heavy queries run at once (the same probes
 * on the idle server, in the same run, are the baseline), the server's peak RSS, and the attacks issue 10 found:
 * 120 aliases of 3 days of raw points in one GraphQL request, and a catastrophic regex tag filter.
 *
 *   npm run bench:fairness [-- --runs 3 --server-dir <a built checkout to measure instead of this one>]
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { median, parseArgs, percentile } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const RUNS = Number(args.get('runs') ?? 3);
const SERVER_DIR = resolve(args.get('server-dir') ?? fileURLToPath(new URL('..', import.meta.url)));
const PROBE_EVERY_MS = 10;
const SMALL_EVERY_MS = 100;

const DEMO_METRICS = ['system.cpu.usage', 'system.memory.used', 'http.request.latency', 'http.request.count'];
/** The issue's heavy REST query: the 4 demo metrics ten times over, 3 days, 1-minute averages per host. */
const HEAVY_REST = {
  start_relative: { value: 3, unit: 'days' },
  metrics: Array.from({ length: 10 }, () => DEMO_METRICS).flat().map((name) => ({
    name,
    group_by: [{ name: 'tag', tags: ['host'] }],
    aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'minutes' } }],
  })),
};
/** A heavy answer: 6 aliases of 3 days of raw points (about 930,000 points, under MAX_REQUEST_POINTS). */
const HEAVY_GRAPHQL = `{ ${Array.from({ length: 6 }, (_, i) => `a${i}: series(metric: "system.cpu.usage", from: "now-3d", where: [{ tag: "host", eq: "web-0${i + 1}" }]) { points { epochMs value } }`).join('\n')} }`;
const SMALL_GRAPHQL = `{ series(metric: "system.cpu.usage", from: "now-10m", groupBy: { tags: ["host"] }, aggregators: [{ max: { sampling: { value: 1, unit: MINUTES } } }]) { points { value } } }`;
const ALIASES_120 = `{ ${Array.from({ length: 120 }, (_, i) => `a${i}: series(metric: "system.cpu.usage", from: "now-3d") { points { epochMs value } }`).join('\n')} }`;
const EVIL_VALUE = `${'a'.repeat(31)}!`;

interface Server {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
}

console.log(`command: npm run bench:fairness -- --runs ${RUNS}${args.has('server-dir') ? ` --server-dir ${SERVER_DIR}` : ''}`);
console.log(`server: node dist/main.js in ${SERVER_DIR}; node ${process.version}; ${new Date().toISOString()}`);
execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: SERVER_DIR, stdio: 'inherit' });

const dataDir = mkdtempSync(join(tmpdir(), 'kairograph-fairness-'));
const server = await startServer();
try {
  // The regex attack needs a series whose tag value makes a backtracking matcher explode.
  await call('POST', '/api/v1/datapoints', [{ name: 'evil', tags: { k: EVIL_VALUE }, datapoints: [[Date.now() - 60_000, 1]] }]);
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
    const regexRest = await call('POST', '/api/v1/datapoints/query', { start_relative: { value: 1, unit: 'hours' }, metrics: [{ name: 'evil', tags: { k: ['regex:(a+)+$'] } }] });
    const regexGraphql = await graphql(`{ series(metric: "evil", from: "now-1h", where: [{ tag: "k", regex: "(a+)+$" }]) { points { value } } }`);
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
  console.log(`  ratio loaded/idle /health p99 ${(median(results['loaded health p99']!) / median(results['idle health p99']!)).toFixed(1)}`);
  console.log(`  server peak RSS over the whole run (VmHWM) ${mb(hwmKb())} MB`);
} finally {
  server.child.kill('SIGTERM');
  await new Promise((done) => server.child.once('exit', done));
  rmSync(dataDir, { recursive: true, force: true });
}

async function startServer(): Promise<Server> {
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: SERVER_DIR,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SEED_DEMO: 'true', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const entry = JSON.parse(line) as { msg?: string; url?: string; points?: number; ms?: number };
    if (entry.msg?.startsWith('seeded')) console.log(`demo data: ${entry.points} points seeded in ${entry.ms} ms`);
    if (entry.url !== undefined) {
      // The rest of the log (a line per request) is drained and dropped.
      lines.on('line', () => {});
      return { url: entry.url, pid: child.pid!, child };
    }
  }
  throw new Error('the server exited before it listened');
}

interface Answer {
  readonly status: number;
  readonly code: string;
  readonly ms: number;
}

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  await response.arrayBuffer();
  return { status: response.status, code: '', ms: performance.now() - started };
}

async function graphql(query: string): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${server.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query }) });
  const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
  return { status: response.status, code: body.errors?.[0]?.extensions?.code ?? 'OK', ms: performance.now() - started };
}

/** Probes /health every 10 ms and a small query every 100 ms until `work` settles; samples the server's RSS. */
async function probeWhile<T>(work: Promise<T>): Promise<{ value: T; health: number[]; small: number[]; peakRssKb: number }> {
  let done = false;
  const health: number[] = [];
  const small: number[] = [];
  let peakRssKb = rssKb();
  const finished = work.finally(() => (done = true));
  const probe = async (every: number, send: () => Promise<Answer>, into: number[]) => {
    while (!done) {
      const answer = await send();
      into.push(answer.ms);
      peakRssKb = Math.max(peakRssKb, rssKb());
      await sleep(every);
    }
  };
  await Promise.all([finished, probe(PROBE_EVERY_MS, () => call('GET', '/health'), health), probe(SMALL_EVERY_MS, () => graphql(SMALL_GRAPHQL), small)]);
  return { value: await finished, health, small, peakRssKb };
}

function status(field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0);
}

function rssKb(): number {
  return status('VmRSS');
}

function hwmKb(): number {
  return status('VmHWM');
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
