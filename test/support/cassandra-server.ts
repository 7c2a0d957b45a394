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
  /**
   * Settings for a node a test kills with -9 and relaunches on its data (run.sh --crash-safe): without
   * `-Dcassandra.unsafesystem=true`, so schema changes are flushed, and with `commitlog_sync: batch`, so every
   * acknowledged write is found again by replay. Default false: DDL and writes are faster with the shortcuts.
   */
  crashSafe?: boolean;
}

const TOOLS = fileURLToPath(new URL('../../tools/cassandra/', import.meta.url));
// run.sh waits this long after TERM before KILL (a drain flushes every memtable); ours is the backstop if run.sh itself hangs.
const RUN_SH_STOP_TIMEOUT_S = 30;
const STOP_BACKSTOP_MS = (RUN_SH_STOP_TIMEOUT_S + 15) * 1000;
/** What a single node and a cluster share of supervising run.sh: the script, its stop timeout and its ready line. */
const RUN_SH = {
  scriptName: 'tools/cassandra/run.sh',
  scriptPath: `${TOOLS}run.sh`,
  env: { KAIROGRAPH_CASSANDRA_STOP_TIMEOUT: String(RUN_SH_STOP_TIMEOUT_S) },
  readyPrefix: 'KAIROGRAPH_CASSANDRA_READY ',
  stopBackstopMs: STOP_BACKSTOP_MS,
} as const;

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
    return {
      contactPoint: hostPort,
      port,
      localDataCenter: String(row.get('data_center')),
      pid: 0,
      bootMs: 0,
      stop: async () => {},
    };
  } catch (err) {
    throw new Error(
      `KAIROGRAPH_CASSANDRA=${hostPort} does not answer CQL: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  } finally {
    await client.shutdown();
  }
}

async function boot(options: StartCassandraOptions): Promise<CassandraServer> {
  const bootTimeoutMs = options.bootTimeoutMs ?? 180_000;
  const args = ['--timeout', String(Math.ceil(bootTimeoutMs / 1000))];
  if (options.heap) args.push('--heap', options.heap);
  if (options.crashSafe) args.push('--crash-safe');
  const { ready, stop } = await supervise({
    label: 'Cassandra',
    ...RUN_SH,
    args,
    readyMeans: 'answer CQL',
    bootTimeoutMs,
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

/** One node of a local cluster (run.sh --nodes N): its own loopback address, the cluster's ports. */
export interface ClusterNode {
  /** 1..N: node n listens on 127.0.0.n. */
  readonly index: number;
  /** `127.0.0.<n>:<port>` */
  readonly contactPoint: string;
  /** The JVM's pid while it runs, 0 while it is down. */
  readonly pid: number;
}

export interface CassandraCluster {
  /** Every node's `127.0.0.<n>:<port>`, for the driver's `contactPoints`. */
  readonly contactPoints: readonly string[];
  readonly port: number;
  readonly localDataCenter: string;
  readonly nodes: readonly ClusterNode[];
  /** Run start to the last node's first answered CQL query, nodes booted one after another. */
  readonly bootMs: number;
  /** SIGKILLs node n's JVM (a crash: no drain, no goodbye to gossip) and resolves once run.sh has seen it die. */
  kill(index: number): Promise<void>;
  /** Starts every dead node again on its own data dir, one after another; resolves once each answers CQL. */
  restart(): Promise<void>;
  /** Stops every node and deletes the cluster's dir. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartClusterOptions {
  readonly nodes: number;
  /** Each node's JVM heap, e.g. `512m`. */
  readonly heap?: string;
  /** How long each node may take to answer CQL (default 180 s). */
  readonly bootTimeoutMs?: number;
}

/**
 * A throwaway cluster of `nodes` nodes on 127.0.0.1..n through tools/cassandra/run.sh --nodes, with the same cleanup
 * guarantees as a single node (the script stops every node when this process ends, however it ends).
 */
export async function startCassandraCluster(options: StartClusterOptions): Promise<CassandraCluster> {
  const nodes = await superviseNodes(
    options.nodes,
    options.bootTimeoutMs,
    options.heap ? ['--heap', options.heap] : [],
    'Cassandra cluster',
    'answer CQL on every node',
  );
  return {
    contactPoints: nodes.contactPoints,
    port: nodes.port,
    localDataCenter: nodes.localDataCenter,
    bootMs: nodes.bootMs,
    get nodes() {
      return nodes.contactPoints.map((contactPoint, i) => ({ index: i + 1, contactPoint, pid: nodes.pid(i + 1) }));
    },
    kill: nodes.kill,
    restart: async () => void (await nodes.restart('own')),
    stop: nodes.stop,
  };
}

/** A single node that a test may crash and launch again on the same address and port (run.sh --restartable). */
export interface RestartableCassandra {
  /** `127.0.0.1:<port>`, the same in every life of the node. */
  readonly contactPoint: string;
  readonly port: number;
  readonly localDataCenter: string;
  /** The JVM's pid while it runs, 0 while it is down. */
  readonly pid: number;
  /** JVM launch to the first answered CQL query of its first life. */
  readonly bootMs: number;
  /** SIGKILLs the JVM (a crash: no drain, no flush) and resolves once run.sh has seen it die. */
  kill(): Promise<void>;
  /**
   * Launches the killed node again, on its own data (`own`), or as a new node in its place on empty data dirs
   * (`empty`); resolves once it answers CQL again, with the JVM's launch to that answer in ms.
   */
  relaunch(data: 'own' | 'empty'): Promise<number>;
  /** Stops the node and deletes its dir. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartRestartableOptions {
  /** JVM heap, e.g. `512m`. */
  readonly heap?: string;
  /** How long the JVM may take to answer CQL, in each life (default 180 s). */
  readonly bootTimeoutMs?: number;
  /** As StartCassandraOptions.crashSafe: without it, a node killed with -9 may come back without recent schema changes and writes. */
  readonly crashSafe?: boolean;
}

export async function startRestartableCassandra(options: StartRestartableOptions = {}): Promise<RestartableCassandra> {
  const args = [
    '--restartable',
    ...(options.heap ? ['--heap', options.heap] : []),
    ...(options.crashSafe ? ['--crash-safe'] : []),
  ];
  const nodes = await superviseNodes(1, options.bootTimeoutMs, args, 'Cassandra', 'answer CQL');
  return {
    contactPoint: nodes.contactPoints[0]!,
    port: nodes.port,
    localDataCenter: nodes.localDataCenter,
    get pid() {
      return nodes.pid(1);
    },
    bootMs: nodes.bootMs,
    kill: () => nodes.kill(1),
    relaunch: async (data) => (await nodes.restart(data)).get(1)!,
    stop: nodes.stop,
  };
}

/** What a cluster and a restartable node share: run.sh supervising N nodes that may die and be launched again. */
interface SupervisedNodes {
  readonly contactPoints: readonly string[];
  readonly port: number;
  readonly localDataCenter: string;
  readonly bootMs: number;
  /** Node n's JVM pid, 0 while it is down. */
  pid(index: number): number;
  kill(index: number): Promise<void>;
  /** Launches every dead node again; resolves with each one's launch-to-CQL time, by node. */
  restart(data: 'own' | 'empty'): Promise<Map<number, number>>;
  stop(): Promise<void>;
}

async function superviseNodes(
  count: number,
  bootTimeout: number | undefined,
  extraArgs: readonly string[],
  label: string,
  readyMeans: string,
): Promise<SupervisedNodes> {
  await runFetch('tools/cassandra/fetch.sh', `${TOOLS}fetch.sh`);
  const bootTimeoutMs = bootTimeout ?? 180_000;
  const args = ['--nodes', String(count), '--timeout', String(Math.ceil(bootTimeoutMs / 1000)), ...extraArgs];
  const pids = new Map<number, number>();
  // Lines run.sh prints after READY: a node down (`NODE_DOWN node=n`) or back (`NODE_READY node=n pid=p boot_ms=t`).
  const waiters: { prefix: string; node: number; resolve: (bootMs: number) => void }[] = [];
  const onLine = (line: string): void => {
    const event = /^KAIROGRAPH_CASSANDRA_(NODE_DOWN|NODE_READY) node=(\d+) pid=(\d+)/.exec(line);
    if (!event) return;
    const node = Number(event[2]);
    pids.set(node, event[1] === 'NODE_READY' ? Number(event[3]) : 0);
    const bootMs = Number(/ boot_ms=(\d+)/.exec(line)?.[1] ?? 0);
    for (const waiter of waiters.splice(0)) {
      if (waiter.prefix === event[1] && waiter.node === node) waiter.resolve(bootMs);
      else waiters.push(waiter);
    }
  };
  const until = (prefix: string, node: number, what: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Cassandra node ${node} did not ${what} within ${bootTimeoutMs} ms`)),
        bootTimeoutMs,
      );
      waiters.push({
        prefix,
        node,
        resolve: (ms) => {
          clearTimeout(timer);
          resolve(ms);
        },
      });
    });
  const script = await supervise({
    label,
    ...RUN_SH,
    args,
    readyMeans,
    // Nodes boot one after another, each within run.sh's own timeout.
    bootTimeoutMs: bootTimeoutMs * count,
    onLine,
  });
  const { ready } = script;
  try {
    const port = ready.int('port');
    const contactPoints = (ready.fields.get('contact_points') ?? '').split(',');
    const started = (ready.fields.get('pids') ?? '').split(',').map(Number);
    if (contactPoints.length !== count || started.length !== count)
      throw new Error(`run.sh --nodes ${count} printed an unexpected READY line`);
    for (const [i, pid] of started.entries()) pids.set(i + 1, pid);
    return {
      contactPoints,
      port,
      localDataCenter: ready.fields.get('dc') ?? 'datacenter1',
      bootMs: ready.int('boot_ms'),
      pid: (index) => pids.get(index) ?? 0,
      async kill(index) {
        const pid = pids.get(index) ?? 0;
        if (pid === 0) throw new Error(`Cassandra node ${index} is not running`);
        const down = until('NODE_DOWN', index, 'go down');
        process.kill(pid, 'SIGKILL');
        await down;
      },
      async restart(data) {
        const dead = [...pids].filter(([, pid]) => pid === 0).map(([node]) => node);
        const back = Promise.all(
          dead.map(async (node) => [node, await until('NODE_READY', node, 'answer CQL again')] as const),
        );
        if (!script.signal(data === 'own' ? 'SIGUSR1' : 'SIGUSR2')) throw new Error('the Cassandra script has exited');
        return new Map(await back);
      },
      stop: script.stop,
    };
  } catch (err) {
    await script.stop();
    throw err;
  }
}
