/**
 * What unknown credentials cost the gateway: requests with random tokens, `--concurrency` at a time, against a
 * CREDENTIALS_FILE of `--tokens` tokens, on the production build in a process of its own. While they run, one valid
 * token is used for the first time (its first verification is timed) and a worker thread probes /health every 10 ms.
 * The gateway's CPU comes from /proc. Each run starts a fresh gateway (nothing verified yet) and warms it with
 * `--warmup` unknown tokens first, unmeasured, as a gateway that has been running is; medians over `--runs`.
 *
 * Baseline, in the same run: the same attack, fewer requests, against a file whose tokens are scrypt hashes (the form
 * before digests: every unknown token must be tried against each), as CPU per request, so the ratio says what digests
 * save per unknown token.
 *
 *   npm run bench:auth [-- --requests 200 --concurrency 20 --tokens 50 --runs 5 --baseline-requests 4]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { hashSecret, newToken, tokenHash } from '../src/http/hashes.js';
import { buildGateway, cpuSeconds, memoryKb, startGateway } from './gateway-process.js';
import { median, parseArgs, percentile } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const REQUESTS = Number(args.get('requests') ?? 200);
const CONCURRENCY = Number(args.get('concurrency') ?? 20);
const TOKENS = Number(args.get('tokens') ?? 50);
const RUNS = Number(args.get('runs') ?? 5);
const BASELINE_REQUESTS = Number(args.get('baseline-requests') ?? 4);
/** Unknown tokens sent before the measured ones, unmeasured (0 for a cold gateway). */
const WARMUP = Number(args.get('warmup') ?? 1000);
const DIR = fileURLToPath(new URL('..', import.meta.url));

/** The probe's own thread, so that this thread's work on the attack's answers never delays a probe. */
const PROBER = `
const { parentPort, workerData: { url } } = require('node:worker_threads');
let done = false;
parentPort.once('message', () => (done = true));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  // Its own first fetches load and compile undici in this thread: they time the probe, not the gateway.
  for (let i = 0; i < 20; i++) await fetch(url + '/health').then((r) => r.arrayBuffer());
  parentPort.postMessage('ready');
  const ms = [];
  while (!done) {
    const t = performance.now();
    try {
      const r = await fetch(url + '/health');
      await r.arrayBuffer();
      ms.push(performance.now() - t);
    } catch {
      break;
    }
    await sleep(10);
  }
  parentPort.postMessage(ms);
})();
`;

interface Run {
  readonly cpuS: number;
  readonly wallMs: number;
  readonly validFirstMs: number;
  /** 200, or what the valid token got instead (503 when scrypt work queued up in front of it). */
  readonly validStatus: number;
  readonly healthP99Ms: number;
  readonly statuses: ReadonlyMap<number, number>;
  readonly peakRssMb: number;
}

console.log(
  `command: npm run bench:auth -- --requests ${REQUESTS} --concurrency ${CONCURRENCY} --tokens ${TOKENS} --runs ${RUNS} --baseline-requests ${BASELINE_REQUESTS} --warmup ${WARMUP}`,
);
console.log(
  `machine: ${process.arch}, Node ${process.version}; the gateway: production build, embedded store, its own process`,
);
buildGateway(DIR);

const dir = mkdtempSync(join(tmpdir(), 'kairograph-bench-auth-'));
try {
  const valid = Array.from({ length: TOKENS }, () => newToken());
  const digests = `${dir}/digests.json`;
  writeFileSync(
    digests,
    JSON.stringify({
      tokens: valid.map((token, i) => ({ name: `client-${i}`, hash: tokenHash(token), scopes: ['read'] })),
    }),
  );
  // scrypt at the cost `kairograph hash-secret` gives (ln=14), as files made before digests hold them.
  const scrypts = `${dir}/scrypt.json`;
  writeFileSync(
    scrypts,
    JSON.stringify({
      tokens: await Promise.all(
        valid.map(async (token, i) => ({ name: `client-${i}`, hash: await hashSecret(token), scopes: ['read'] })),
      ),
    }),
  );

  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++)
    runs.push(await attack(digests, valid[i % valid.length]!, REQUESTS, `${dir}/data-${i}`));
  // Unwarmed: each unknown token costs scrypts by the dozen.
  const baseline = await attack(scrypts, valid[0]!, BASELINE_REQUESTS, `${dir}/data-baseline`, 0);

  const show = (run: Run) =>
    `cpu ${run.cpuS.toFixed(2)} s, wall ${Math.round(run.wallMs)} ms, valid token's first answer ${run.validStatus} in ${run.validFirstMs.toFixed(1)} ms, /health p99 ${run.healthP99Ms.toFixed(1)} ms, peak RSS ${run.peakRssMb.toFixed(0)} MB, statuses ${JSON.stringify(Object.fromEntries(run.statuses))}`;
  for (const [i, run] of runs.entries()) console.log(`run ${i + 1}: ${show(run)}`);
  console.log(`baseline (${BASELINE_REQUESTS} unknown tokens against ${TOKENS} scrypt hashes): ${show(baseline)}`);
  const cpu = median(runs.map((r) => r.cpuS));
  const first = median(runs.map((r) => r.validFirstMs));
  const health = median(runs.map((r) => r.healthP99Ms));
  const perRequest = (cpu / REQUESTS) * 1000;
  const basePerRequest = (baseline.cpuS / BASELINE_REQUESTS) * 1000;
  console.log('');
  console.log(`gateway CPU for ${REQUESTS} unknown tokens: median ${cpu.toFixed(2)} s (target ≤ 1 s)`);
  console.log(`a valid token's first verification during it: median ${first.toFixed(1)} ms (target ≤ 200 ms)`);
  console.log(`/health p99 during it: median ${health.toFixed(1)} ms (target ≤ 50 ms)`);
  console.log(
    `CPU per unknown token: ${perRequest.toFixed(2)} ms with digests, ${basePerRequest.toFixed(0)} ms against scrypt hashes: ${(basePerRequest / perRequest).toFixed(0)}× less`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** One fresh gateway, `requests` random tokens at CONCURRENCY, one valid token's first use halfway through. */
async function attack(
  credentials: string,
  validToken: string,
  requests: number,
  dataDir: string,
  warmup = WARMUP,
): Promise<Run> {
  const gateway = await startGateway(DIR, { CREDENTIALS_FILE: credentials, DATA_DIR: dataDir, SEED_DEMO: 'false' });
  try {
    const ask = async (token: string) => {
      const response = await fetch(`${gateway.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: '{ sources { name } }' }),
      });
      await response.arrayBuffer();
      return response.status;
    };
    // A gateway under attack has been running: its code is compiled and its connections open. Warm it with the same
    // attack (unknown tokens verify nothing, so the valid token's verification below is still its first).
    const warm = async () => {
      for (let i = 0; i < warmup / CONCURRENCY; i++) await ask(newToken());
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, warm));
    await fetch(`${gateway.url}/health`).then((r) => r.arrayBuffer());
    const prober = new Worker(PROBER, { eval: true, workerData: { url: gateway.url } });
    await new Promise((resolve) => prober.once('message', resolve));
    const probes = new Promise<number[]>((resolve) => prober.once('message', resolve));
    const cpuBefore = cpuSeconds(gateway.pid);
    const started = performance.now();
    const statuses = new Map<number, number>();
    let sent = 0;
    let validFirstMs = Number.NaN;
    let validStatus = 0;
    const worker = async () => {
      while (sent < requests) {
        const n = sent++;
        if (n === Math.floor(requests / 2)) {
          const t = performance.now();
          validStatus = await ask(validToken);
          validFirstMs = performance.now() - t;
        }
        const status = await ask(newToken());
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    try {
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    } finally {
      prober.postMessage('stop');
    }
    const wallMs = performance.now() - started;
    const cpuS = cpuSeconds(gateway.pid) - cpuBefore;
    const health = await probes;
    await prober.terminate();
    return {
      cpuS,
      wallMs,
      validFirstMs,
      validStatus,
      healthP99Ms: percentile(health, 0.99),
      statuses,
      peakRssMb: memoryKb(gateway.pid, 'VmHWM') / 1024,
    };
  } finally {
    await gateway.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
