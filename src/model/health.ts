/**
 * How a source and its store stand, as /ready and /metrics show them: the servers of a store of several, and what of
 * a schema the store keeps it lost and made again.
 */

/** A store of several servers (a Cassandra cluster) as its client sees them when it answers a ping. */
export interface PingReport {
  /** `degraded`: answering, while some of its servers are down. */
  readonly status: 'ready' | 'degraded';
  readonly hosts: readonly HostState[];
  /** What of the store's schema was lost and created again since it started (absent when nothing was). */
  readonly recreated?: readonly Recreation[];
}

export interface HostState {
  /** `address:port`, as the driver names it. */
  readonly address: string;
  readonly datacenter: string;
  readonly up: boolean;
}

/**
 * A keyspace or table that was gone and was created again while the store ran, by it or by another client: what was
 * written to it before may be missing.
 */
export interface Recreation {
  /** The keyspace (`kairosdb`) or a table (`kairosdb.row_keys`). */
  readonly object: string;
  /** When the store created it again, or found it created again, in ISO 8601. */
  readonly at: string;
  /** `gateway`: this store created it again; `other`: another client did (its table id changed). */
  readonly by: 'gateway' | 'other';
  /** What the store found: what the node's catalog listed and what the node answered. */
  readonly why: string;
}

/** How a store that keeps a schema of its own (KairosDB's keyspace on Cassandra) finds it, repairs it, and lost it. */
export interface SchemaRepairStatus {
  /** A repair is under way: requests fail at once with STORE_UNAVAILABLE until it succeeds. */
  readonly repairing: boolean;
  /** Repair attempts since the store was made, and those that failed. */
  readonly attempts: number;
  readonly failures: number;
  /** The wait before the next attempt of the repair under way (it doubles with each failure, up to a bound). */
  readonly retryDelayMs: number | undefined;
  /** Keyspaces and tables created again since the store was made (each re-creation counted). */
  readonly recreatedKeyspaces: number;
  readonly recreatedTables: number;
  /** When the last re-creation was made or found (epoch ms), or undefined when none was. */
  readonly lastRecreationMs: number | undefined;
  /** The latest re-creation of each keyspace and table that had one, in the order they happened. */
  readonly recreated: readonly Recreation[];
}
