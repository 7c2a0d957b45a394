// Owns a real KairosDB 1.3 for tests: boots one through tools/kairosdb/run.sh over a given Cassandra and keyspace (or
// reuses KAIROGRAPH_KAIROSDB=host:port) and makes sure no JVM outlives this process (test/support/supervised-script.ts).
import { fileURLToPath } from 'node:url';
import cassandra from 'cassandra-driver';
import { runFetch, supervise } from './supervised-script.js';

export interface KairosDBServer {
  /** `http://127.0.0.1:<port>`; the REST API is under `/api/v1`. */
  url: string;
  port: number;
  /** As `/api/v1/version` names it, without "KairosDB ": `1.3.0-1.20210808223203`. */
  version: string;
  /** The keyspace it reads and writes: run Kairograph on the same one to compare or interoperate. */
  keyspace: string;
  /** Stops KairosDB and deletes its run dir (not its keyspace); a no-op for a reused one. Safe to call twice. */
  stop(): Promise<void>;
  /** The JVM's pid; 0 for a reused KairosDB. */
  pid: number;
  /** JVM launch to the first answered `/api/v1/version`; 0 for a reused KairosDB. */
  bootMs: number;
  /** Its telnet port on 127.0.0.1 when started with `telnet`; for a reused one, env KAIROGRAPH_KAIROSDB_TELNET_PORT; else 0. */
  telnetPort: number;
}

export interface StartKairosDBOptions {
  /** `host:port` of the Cassandra to use; a reused KairosDB must be using this one too. */
  cassandra: string;
  /** Keyspace of a KairosDB we boot (default `kairosdb`); created with KairosDB's tables when missing. */
  keyspace?: string;
  /** JVM -Xmx, e.g. `512m`; tools/kairosdb/jvm.options has the default. */
  heap?: string;
  /** `table_create_with.data_points` (default `""`, Kairograph's table; KairosDB's own default is `WITH COMPACT STORAGE`). */
  dataPointsWith?: string;
  /** `write_cluster.tag_indexed_row_key_lookup_metrics` as JSON (default `{}`: KairosDB's, no tag index). */
  tagIndexed?: string;
  /** How long the JVM may take to answer REST (default 120 s); the Maven fetch before it is not counted. */
  bootTimeoutMs?: number;
  /** Serve KairosDB's telnet protocol too, on a free port (off by default, as in tools/kairosdb/kairosdb.conf). */
  telnet?: boolean;
  /** `host:port` of a running KairosDB to use instead of booting; defaults to env KAIROGRAPH_KAIROSDB. */
  reuse?: string;
  /** The keyspace a reused KairosDB uses; defaults to env KAIROGRAPH_KAIROSDB_KEYSPACE, else `kairosdb`. */
  reuseKeyspace?: string;
}

const TOOLS = fileURLToPath(new URL('../../tools/kairosdb/', import.meta.url));
// run.sh waits this long after TERM before KILL (measured stops take 2-5 s); ours is the backstop if run.sh itself hangs.
const RUN_SH_STOP_TIMEOUT_S = 20;
const STOP_BACKSTOP_MS = (RUN_SH_STOP_TIMEOUT_S + 15) * 1000;
const PROBE_TIMEOUT_MS = 10_000;

export async function startKairosDB(options: StartKairosDBOptions): Promise<KairosDBServer> {
  const reuse = (options.reuse ?? process.env.KAIROGRAPH_KAIROSDB ?? '').trim();
  if (reuse !== '')
    return useRunning(
      reuse,
      (options.reuseKeyspace ?? process.env.KAIROGRAPH_KAIROSDB_KEYSPACE ?? '').trim() || 'kairosdb',
      options.cassandra,
    );
  await runFetch('tools/kairosdb/fetch.sh', `${TOOLS}fetch.sh`);
  return boot(options);
}

async function useRunning(hostPort: string, keyspace: string, cassandraHostPort: string): Promise<KairosDBServer> {
  const match = /^(.+):(\d+)$/.exec(hostPort);
  if (!match) throw new Error(`KAIROGRAPH_KAIROSDB must be host:port, got "${hostPort}"`);
  // Cassandra's rule for names; it is also pasted into the probe's CQL, where a keyspace cannot be a bound value.
  if (!/^[A-Za-z0-9_]{1,48}$/.test(keyspace))
    throw new Error(`KAIROGRAPH_KAIROSDB_KEYSPACE must be a keyspace name, got "${keyspace}"`);
  const url = `http://${hostPort}`;
  let version: string;
  try {
    const response = await fetch(`${url}/api/v1/version`, { signal: AbortSignal.timeout(5000) });
    const text = await response.text();
    const found = /^KairosDB (\S+)$/.exec((JSON.parse(text) as { version?: string }).version ?? '')?.[1];
    if (response.status !== 200 || !found)
      throw new Error(`GET /api/v1/version answered ${response.status}: ${text.slice(0, 200)}`);
    version = found;
  } catch (err) {
    throw new Error(
      `KAIROGRAPH_KAIROSDB=${hostPort} is not a KairosDB: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  // The tests run Kairograph on KairosDB's keyspace of the test Cassandra; a KairosDB on another Cassandra or keyspace
  // would make every interop test fail on points that never arrive. A probe name written through it must reach ours.
  if (!(await writesInto(url, cassandraHostPort, keyspace))) {
    throw new Error(
      `KAIROGRAPH_KAIROSDB=${hostPort} does not write into keyspace ${keyspace} of the tests' Cassandra (${cassandraHostPort}). ` +
        'Point KAIROGRAPH_CASSANDRA at the Cassandra that KairosDB uses and KAIROGRAPH_KAIROSDB_KEYSPACE at its keyspace ' +
        '(`npm run kairosdb` prints both).',
    );
  }
  const telnetPort = Number(process.env.KAIROGRAPH_KAIROSDB_TELNET_PORT ?? 0) || 0;
  return { url, port: Number(match[2]), version, keyspace, pid: 0, bootMs: 0, telnetPort, stop: async () => {} };
}

/**
 * Writes one point of a probe metric through KairosDB, waits until KairosDB lists its name (stored, wherever that is),
 * looks for the name in `keyspace`'s string_index on our Cassandra, and deletes the probe through KairosDB again.
 */
async function writesInto(url: string, cassandraHostPort: string, keyspace: string): Promise<boolean> {
  const probe = `kg.reuse_probe.${Date.now().toString(36)}${process.pid.toString(36)}`;
  const written = await fetch(`${url}/api/v1/datapoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ name: probe, tags: { probe: 'reuse' }, datapoints: [[0, 1]] }]),
  });
  if (written.status !== 204)
    throw new Error(`KairosDB refused the reuse probe: ${written.status} ${await written.text()}`);
  try {
    // KairosDB's ingest is asynchronous: the name is stored a moment after the 204. Deleting before that would leave it.
    const deadline = performance.now() + PROBE_TIMEOUT_MS;
    for (;;) {
      const names = (await (await fetch(`${url}/api/v1/metricnames?prefix=${encodeURIComponent(probe)}`)).json()) as {
        results?: string[];
      };
      if (names.results?.includes(probe)) break;
      if (performance.now() > deadline)
        throw new Error(`KairosDB did not store the reuse probe ${probe} within ${PROBE_TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return await hasMetricName(cassandraHostPort, keyspace, probe);
  } finally {
    // Deleting the metric takes its name out of string_index too.
    await fetch(`${url}/api/v1/metric/${encodeURIComponent(probe)}`, { method: 'DELETE' });
  }
}

async function hasMetricName(cassandraHostPort: string, keyspace: string, name: string): Promise<boolean> {
  const client = new cassandra.Client({
    contactPoints: [cassandraHostPort],
    policies: { loadBalancing: new cassandra.policies.loadBalancing.RoundRobinPolicy() },
    protocolOptions: { maxVersion: 4 },
  });
  try {
    await client.connect();
    const table = await client.execute(
      'SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?',
      [keyspace, 'string_index'],
      {
        prepare: true,
      },
    );
    if (table.rowLength === 0) return false;
    const found = await client.execute(
      `SELECT column1 FROM ${keyspace}.string_index WHERE key = ? AND column1 = ?`,
      [Buffer.from('metric_names'), name],
      {
        prepare: true,
      },
    );
    return found.rowLength === 1;
  } finally {
    await client.shutdown();
  }
}

async function boot(options: StartKairosDBOptions): Promise<KairosDBServer> {
  const bootTimeoutMs = options.bootTimeoutMs ?? 120_000;
  const keyspace = options.keyspace ?? 'kairosdb';
  const args = [
    '--cassandra',
    options.cassandra,
    '--keyspace',
    keyspace,
    '--timeout',
    String(Math.ceil(bootTimeoutMs / 1000)),
  ];
  if (options.heap) args.push('--heap', options.heap);
  if (options.dataPointsWith !== undefined) args.push('--data-points-with', options.dataPointsWith);
  if (options.tagIndexed !== undefined) args.push('--tag-indexed', options.tagIndexed);
  if (options.telnet) args.push('--telnet');
  const { ready, stop } = await supervise({
    label: 'KairosDB',
    scriptName: 'tools/kairosdb/run.sh',
    scriptPath: `${TOOLS}run.sh`,
    args,
    env: { KAIROGRAPH_KAIROSDB_STOP_TIMEOUT: String(RUN_SH_STOP_TIMEOUT_S) },
    readyPrefix: 'KAIROGRAPH_KAIROSDB_READY ',
    readyMeans: 'answer GET /api/v1/version',
    bootTimeoutMs,
    stopBackstopMs: STOP_BACKSTOP_MS,
  });
  try {
    const port = ready.int('port');
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      version: ready.fields.get('version') ?? '',
      keyspace,
      pid: ready.pid,
      bootMs: ready.int('boot_ms'),
      telnetPort: options.telnet ? ready.int('telnet_port') : 0,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
