// Owns a real Cassandra for tests and benchmarks: boots one through tools/cassandra/run.sh (or reuses KAIROGRAPH_CASSANDRA=host:port)
// and makes sure no JVM outlives this process, whether it ends by stop(), a signal, or a crash.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import cassandra from 'cassandra-driver';

export interface CassandraServer {
  /** `127.0.0.1:<port>`, ready for the driver's `contactPoints`. */
  contactPoint: string;
  port: number;
  localDataCenter: string;
  /** Stops the node and deletes its dir; a no-op for a reused node. Safe to call twice. */
  stop(): Promise<void>;
  /** The JVM's pid; 0 for a reused node. */
  pid: number;
  /** JVM launch to the first answered CQL query; 0 for a reused node. */
  bootMs: number;
}

export interface StartCassandraOptions {
  /** JVM heap, e.g. `1g`; tools/cassandra/jvm.options has the default. */
  heap?: string;
  /** How long the JVM may take to answer CQL (default 180 s); the Maven fetch before it is not counted. */
  bootTimeoutMs?: number;
  /** `host:port` of a running node to use instead of booting; defaults to env KAIROGRAPH_CASSANDRA. */
  reuse?: string;
}

const TOOLS = fileURLToPath(new URL('../../tools/cassandra/', import.meta.url));
const FETCH_TIMEOUT_MS = 20 * 60_000;
// run.sh waits this long after TERM before KILL (a drain flushes every memtable); ours is the backstop if run.sh itself hangs.
const RUN_SH_STOP_TIMEOUT_S = 30;
const STOP_BACKSTOP_MS = (RUN_SH_STOP_TIMEOUT_S + 15) * 1000;
const TAIL_LINES = 80;
const READY_PREFIX = 'KAIROGRAPH_CASSANDRA_READY ';

export async function startCassandra(options: StartCassandraOptions = {}): Promise<CassandraServer> {
  const reuse = (options.reuse ?? process.env.KAIROGRAPH_CASSANDRA ?? '').trim();
  if (reuse !== '') return useRunningNode(reuse);
  await fetchJars();
  return boot(options);
}

async function useRunningNode(hostPort: string): Promise<CassandraServer> {
  const match = /^(.+):(\d+)$/.exec(hostPort);
  if (!match) throw new Error(`KAIROGRAPH_CASSANDRA must be host:port, got "${hostPort}"`);
  const port = Number(match[2]);
  // Round robin needs no localDataCenter (a wrong one fails connect()); we read the real one for callers' clients.
  const client = new cassandra.Client({
    contactPoints: [hostPort],
    policies: { loadBalancing: new cassandra.policies.loadBalancing.RoundRobinPolicy() },
    protocolOptions: { maxVersion: 4 },
  });
  try {
    await client.connect();
    const row = (await client.execute('SELECT data_center FROM system.local')).first();
    return { contactPoint: hostPort, port, localDataCenter: String(row.get('data_center')), pid: 0, bootMs: 0, stop: async () => {} };
  } catch (err) {
    throw new Error(`KAIROGRAPH_CASSANDRA=${hostPort} does not answer CQL: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  } finally {
    await client.shutdown();
  }
}

function fetchJars(): Promise<void> {
  return new Promise((resolve, reject) => {
    // Inherits stderr: on a fresh machine this is a 90 s Maven download and whoever waits should see why.
    const child = spawn('bash', [`${TOOLS}fetch.sh`], { stdio: ['ignore', 'inherit', 'inherit'], timeout: FETCH_TIMEOUT_MS });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`tools/cassandra/fetch.sh failed (${signal ?? `exit ${code}`}); see its message above`)),
    );
  });
}

interface Ready {
  port: number;
  pid: number;
  bootMs: number;
  dc: string;
  dir: string;
}

function parseReady(line: string): Ready {
  const fields = new Map(line.slice(READY_PREFIX.length).split(' ').map((kv) => kv.split('=', 2) as [string, string]));
  const num = (key: string): number => {
    const value = Number(fields.get(key));
    if (!Number.isInteger(value) || value <= 0) throw new Error(`run.sh printed a READY line without ${key}: ${line}`);
    return value;
  };
  return { port: num('port'), pid: num('pid'), bootMs: num('boot_ms'), dc: fields.get('dc') ?? 'datacenter1', dir: fields.get('dir') ?? '' };
}

const live = new Set<ChildProcess>();

function boot(options: StartCassandraOptions): Promise<CassandraServer> {
  const bootTimeoutMs = options.bootTimeoutMs ?? 180_000;
  const args = [`${TOOLS}run.sh`, '--timeout', String(Math.ceil(bootTimeoutMs / 1000))];
  if (options.heap) args.push('--heap', options.heap);
  // stdin stays a pipe we never close: run.sh stops the node when it reads EOF, i.e. when this process is gone however it died.
  const child = spawn('bash', args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, KAIROGRAPH_CASSANDRA_STOP_TIMEOUT: String(RUN_SH_STOP_TIMEOUT_S) },
  });
  live.add(child);
  installExitHooks();
  const tail: string[] = [];
  const remember = (line: string): void => {
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
  };
  createInterface({ input: child.stderr! }).on('line', remember);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', () => live.delete(child));

  return new Promise<CassandraServer>((resolve, reject) => {
    let settled = false;
    const fail = (message: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`${message}\n--- tools/cassandra/run.sh output (last ${tail.length} lines) ---\n${tail.join('\n')}`));
    };
    // run.sh enforces the boot timeout itself and then prints the log tail; this one only catches run.sh hanging.
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      fail(`Cassandra did not answer CQL within ${bootTimeoutMs} ms`);
    }, bootTimeoutMs + 30_000);
    child.once('error', (err) => fail(`cannot run tools/cassandra/run.sh: ${err.message}`));
    child.once('exit', (code, signal) => fail(`Cassandra failed to boot: run.sh ended with ${signal ?? `exit code ${code}`}`));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith(READY_PREFIX) || settled) return remember(line);
      settled = true;
      clearTimeout(timer);
      let ready: Ready;
      try {
        ready = parseReady(line);
      } catch (err) {
        child.kill('SIGTERM');
        return reject(err);
      }
      resolve({
        contactPoint: `127.0.0.1:${ready.port}`,
        port: ready.port,
        localDataCenter: ready.dc,
        pid: ready.pid,
        bootMs: ready.bootMs,
        stop: once(() => stopNode(child, exited, ready)),
      });
    });
  });
}

async function stopNode(child: ChildProcess, exited: Promise<void>, ready: Ready): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let backstop: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    backstop = setTimeout(() => resolve('hung'), STOP_BACKSTOP_MS);
  });
  const outcome = await Promise.race([exited, hung]);
  clearTimeout(backstop);
  if (outcome !== 'hung') return;
  killQuietly(ready.pid);
  child.kill('SIGKILL');
  if (ready.dir.startsWith('/')) rmSync(ready.dir, { recursive: true, force: true });
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone: exactly what we wanted.
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}

let hooksInstalled = false;

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // TERM makes run.sh drain and delete the node on its own, so it completes even after we are gone.
  const terminateAll = (): void => {
    for (const child of live) child.kill('SIGTERM');
  };
  process.once('exit', terminateAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      terminateAll();
      // Our listener replaced Node's default exit; keep that default unless someone else (vitest) handles the signal.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.once(signal, onSignal);
  }
}
