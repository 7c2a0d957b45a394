// Owns a real Cassandra for tests and benchmarks: boots one through tools/cassandra/run.sh (or reuses KAIROGRAPH_CASSANDRA=host:port)
// and makes sure no JVM outlives this process, whether it ends by stop(), a signal, or a crash (test/support/supervised-script.ts).
import { fileURLToPath } from 'node:url';
import cassandra from 'cassandra-driver';
import { runFetch, supervise } from './supervised-script.js';

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
// run.sh waits this long after TERM before KILL (a drain flushes every memtable); ours is the backstop if run.sh itself hangs.
const RUN_SH_STOP_TIMEOUT_S = 30;
const STOP_BACKSTOP_MS = (RUN_SH_STOP_TIMEOUT_S + 15) * 1000;

export async function startCassandra(options: StartCassandraOptions = {}): Promise<CassandraServer> {
  const reuse = (options.reuse ?? process.env.KAIROGRAPH_CASSANDRA ?? '').trim();
  if (reuse !== '') return useRunningNode(reuse);
  await runFetch('tools/cassandra/fetch.sh', `${TOOLS}fetch.sh`);
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

async function boot(options: StartCassandraOptions): Promise<CassandraServer> {
  const bootTimeoutMs = options.bootTimeoutMs ?? 180_000;
  const args = ['--timeout', String(Math.ceil(bootTimeoutMs / 1000))];
  if (options.heap) args.push('--heap', options.heap);
  const { ready, stop } = await supervise({
    label: 'Cassandra',
    scriptName: 'tools/cassandra/run.sh',
    scriptPath: `${TOOLS}run.sh`,
    args,
    env: { KAIROGRAPH_CASSANDRA_STOP_TIMEOUT: String(RUN_SH_STOP_TIMEOUT_S) },
    readyPrefix: 'KAIROGRAPH_CASSANDRA_READY ',
    readyMeans: 'answer CQL',
    bootTimeoutMs,
    stopBackstopMs: STOP_BACKSTOP_MS,
  });
  try {
    const port = ready.int('port');
    return {
      contactPoint: `127.0.0.1:${port}`,
      port,
      localDataCenter: ready.fields.get('dc') ?? 'datacenter1',
      pid: ready.pid,
      bootMs: ready.int('boot_ms'),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
