/** How one partition is read, by the engine from a source and by a source from its store. */
import type { ReadAheadBudget } from '../lib/queued-scan.js';

export interface ReadOptions {
  /** Column order within the partition (KairosDB's metric `order`). Default `asc`. */
  readonly order?: 'asc' | 'desc';
  /** At most this many points from this partition (KairosDB applies `limit` per partition, then again after merging). */
  readonly limit?: number;
  /** Points per slice (Cassandra fetch size, LMDB batch). Tests use 1 to prove answers do not depend on it. */
  readonly pageSize?: number;
  /** Aborts the read: the iterator rejects with the signal's reason and releases its resources. */
  readonly signal?: AbortSignal;
  /**
   * Read the range as up to this many consecutive parts at once (no limit only), for a partition the query reads
   * (almost) alone: the slices come in the same order with the same points. Reads that never wait ignore it.
   */
  readonly split?: number;
  /**
   * Points the parts of a split read may hold ahead of their reader, shared with the rest of the request's reads ahead
   * (lib/queued-scan.ts): every part reads on while the budget has room. Without it the parts hold about a page each.
   */
  readonly readAhead?: ReadAheadBudget;
}
