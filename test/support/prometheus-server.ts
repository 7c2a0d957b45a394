// Owns a real Prometheus for tests: builds it once (tools/prometheus/build.sh), boots one through
// tools/prometheus/run.sh (or reuses KAIROGRAPH_PROMETHEUS=host:port) and makes sure it never outlives this process
// (test/support/supervised-script.ts: run.sh stops it when our end of its stdin closes, however we die).
import { fileURLToPath } from 'node:url';
import { runFetch, supervise } from './supervised-script.js';

export interface PrometheusServer {
  /** `http://127.0.0.1:<port>`: the HTTP API under `/api/v1`, remote write at `/api/v1/write`. */
  url: string;
  port: number;
  /** As buildinfo answers it: `3.16.0`. */
  version: string;
  /** Stops Prometheus and deletes its dir (TSDB included); a no-op for a reused one. Safe to call twice. */
  stop(): Promise<void>;
  /** Prometheus's pid; 0 for a reused one. */
  pid: number;
  /** Launch to the first answered `/-/ready`; 0 for a reused one. */
  bootMs: number;
}

export interface StartPrometheusOptions {
  /** How long Prometheus may take to be ready (default 60 s); the build before it is not counted. */
  bootTimeoutMs?: number;
  /** A prometheus.yml of the test's own (a scrape and a remote_write, say) instead of tools/prometheus/prometheus.yml. */
  configFile?: string;
  /** More Prometheus flags, e.g. `--enable-feature=promql-experimental-functions`. */
  flags?: readonly string[];
  /** `host:port` of a running Prometheus to use instead of booting; defaults to env KAIROGRAPH_PROMETHEUS. */
  reuse?: string;
}

const TOOLS = fileURLToPath(new URL('../../tools/prometheus/', import.meta.url));
// run.sh waits this long after TERM before KILL (a stop takes well under a second); ours is the backstop if it hangs.
const RUN_SH_STOP_TIMEOUT_S = 10;
const STOP_BACKSTOP_MS = (RUN_SH_STOP_TIMEOUT_S + 15) * 1000;

export async function startPrometheus(options: StartPrometheusOptions = {}): Promise<PrometheusServer> {
  const reuse = (options.reuse ?? process.env.KAIROGRAPH_PROMETHEUS ?? '').trim();
  if (reuse !== '') return useRunning(reuse);
  // Apart from the boot: on a fresh machine this is a build of several minutes, with its own timeout and output.
  await runFetch('tools/prometheus/build.sh', `${TOOLS}build.sh`);
  return boot(options);
}

async function useRunning(hostPort: string): Promise<PrometheusServer> {
  const match = /^(.+):(\d+)$/.exec(hostPort);
  if (!match) throw new Error(`KAIROGRAPH_PROMETHEUS must be host:port, got "${hostPort}"`);
  const url = `http://${hostPort}`;
  let version: string;
  try {
    const response = await fetch(`${url}/api/v1/status/buildinfo`, { signal: AbortSignal.timeout(5000) });
    const body = (await response.json()) as { status?: string; data?: { version?: string; goVersion?: string } };
    if (response.status !== 200 || body.status !== 'success' || typeof body.data?.goVersion !== 'string')
      throw new Error(`GET /api/v1/status/buildinfo answered ${response.status}`);
    version = body.data.version || 'unknown';
  } catch (err) {
    throw new Error(
      `KAIROGRAPH_PROMETHEUS=${hostPort} is not a Prometheus: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  return { url, port: Number(match[2]), version, pid: 0, bootMs: 0, stop: async () => {} };
}

async function boot(options: StartPrometheusOptions): Promise<PrometheusServer> {
  const bootTimeoutMs = options.bootTimeoutMs ?? 60_000;
  const args = ['--timeout', String(Math.ceil(bootTimeoutMs / 1000))];
  if (options.configFile !== undefined) args.push('--config', options.configFile);
  if (options.flags !== undefined && options.flags.length > 0) args.push('--', ...options.flags);
  const { ready, stop } = await supervise({
    label: 'Prometheus',
    scriptName: 'tools/prometheus/run.sh',
    scriptPath: `${TOOLS}run.sh`,
    args,
    env: { KAIROGRAPH_PROMETHEUS_STOP_TIMEOUT: String(RUN_SH_STOP_TIMEOUT_S) },
    readyPrefix: 'KAIROGRAPH_PROMETHEUS_READY ',
    readyMeans: 'answer GET /-/ready',
    bootTimeoutMs,
    stopBackstopMs: STOP_BACKSTOP_MS,
  });
  try {
    const port = ready.int('port');
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      version: ready.fields.get('version') ?? '',
      pid: ready.pid,
      bootMs: ready.int('boot_ms'),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
