/**
 * Fresh, empty Cassandra stores for the integration suites without paying for DDL per store: a few keyspaces per
 * suite are created once and TRUNCATEd (with their spec) each time one is handed out again.
 */
import cassandra from 'cassandra-driver';
import { inject } from 'vitest';
import { CassandraStore, type CassandraStoreOptions } from '../../src/store/cassandra/cassandra-store.js';
import { TABLE_NAMES } from '../../src/store/cassandra/options.js';

/** The integration run's node (test/support/cassandra-global-setup.ts). */
export function testNode(): { contactPoint: string; localDataCenter: string } {
  const node = inject('cassandra');
  return { contactPoint: node.contactPoint, localDataCenter: node.localDataCenter };
}

/** A plain driver client on the test node, for CQL the store must not do (truncates, interop rows, byte checks). */
export async function plainClient(): Promise<cassandra.Client> {
  const node = testNode();
  const client = new cassandra.Client({
    contactPoints: [node.contactPoint],
    localDataCenter: node.localDataCenter,
    protocolOptions: { maxVersion: 4 },
    encoding: { map: Map },
    socketOptions: { readTimeout: 60_000 },
  });
  await client.connect();
  return client;
}

export function storeOptions(keyspace: string, extra: Partial<CassandraStoreOptions> = {}): CassandraStoreOptions {
  const node = testNode();
  // ONE for writes too: a single node, and QUORUM of RF 1 is the same replica anyway.
  return {
    contactPoints: [node.contactPoint],
    localDataCenter: node.localDataCenter,
    keyspace,
    writeConsistency: 'ONE',
    ...extra,
  };
}

/**
 * Hands out stores on keyspaces `<prefix>_0`, `<prefix>_1`, ...: the first free one, emptied. A keyspace is free
 * again once the store on it is closed. Names are fixed per suite, so a reused node (KAIROGRAPH_CASSANDRA) does not
 * collect keyspaces run after run.
 */
export class KeyspacePool {
  private readonly free: string[] = [];
  private made = 0;
  private client: cassandra.Client | undefined;

  constructor(private readonly prefix: string) {}

  /** `options` override the test defaults (row width, unit, concurrency, consistency...). */
  async store(options: Partial<CassandraStoreOptions> = {}): Promise<CassandraStore> {
    const keyspace = this.free.pop() ?? `${this.prefix}_${this.made++}`;
    await this.empty(keyspace);
    const store = await CassandraStore.open(storeOptions(keyspace, options));
    const close = store.close.bind(store);
    let closed = false;
    store.close = async () => {
      if (closed) return;
      closed = true;
      await close();
      this.free.push(keyspace);
    };
    return store;
  }

  async shutdown(): Promise<void> {
    await this.client?.shutdown();
    this.client = undefined;
  }

  private async empty(keyspace: string): Promise<void> {
    this.client ??= await plainClient();
    await emptyKeyspace(this.client, keyspace);
  }
}

/** TRUNCATEs every table the keyspace has, the spec too, so the next store writes its own as into a new keyspace. */
export async function emptyKeyspace(client: cassandra.Client, keyspace: string): Promise<void> {
  const exists = await client.execute(
    'SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?',
    [keyspace],
    { prepare: true },
  );
  const tables = new Set(exists.rows.map((row) => String(row.get('table_name'))));
  await Promise.all(TABLE_NAMES.filter((t) => tables.has(t)).map((t) => client.execute(`TRUNCATE ${keyspace}.${t}`)));
}

/** Polls `check` until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
