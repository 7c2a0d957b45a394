/**
 * The index rows this store wrote recently and Cassandra acknowledged, as KairosDB's row key and metric name caches
 * keep them: a write skips the statements of rows found here. Bounded in entries and in age, each entry gone before
 * the row it stands for can expire, and dropped by this store's deletes and schema repairs.
 */

export interface WrittenIndexOptions {
  /** Entries kept at most; the oldest written goes first. 0 keeps none (every write sends its index rows). */
  readonly maxEntries: number;
  /** How long an entry is trusted: another gateway's delete of the row is seen once this has passed. */
  readonly maxAgeMs: number;
  readonly now?: () => number;
}

/** What a write takes before it sends its index rows: when, and which generation of the cache it began in. */
export interface WriteStamp {
  readonly sentAtMs: number;
  readonly generation: number;
}

export class WrittenIndex {
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;
  /** In insertion order, which is about the order of staleness: the first entries are the first to evict. */
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every drop: a write begun before it may have sent rows the drop's delete shadows. */
  private generation = 0;

  constructor(options: WrittenIndexOptions) {
    this.maxEntries = options.maxEntries;
    this.maxAgeMs = options.maxAgeMs;
    this.now = options.now ?? Date.now;
  }

  /** Entries held, stale ones not yet swept included. */
  get size(): number {
    return this.entries.size;
  }

  /** Taken before a write's index rows are sent: their TTLs count from no earlier than this. */
  stamp(): WriteStamp {
    return { sentAtMs: this.now(), generation: this.generation };
  }

  /**
   * True when the row `key` was written recently enough to be trusted and lives at least until `untilMs` (epoch ms,
   * Infinity: forever), the latest expiry of the cells the write adds: the index must find them while they live.
   */
  covers(key: string, untilMs: number): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    if (entry.staleAtMs <= this.now()) {
      this.entries.delete(key);
      return false;
    }
    return entry.rowUntilMs >= untilMs;
  }

  /**
   * Records a row Cassandra acknowledged, written with `ttlSeconds` (0: never expires) by a write stamped `stamp`;
   * nothing when a drop came since the stamp.
   */
  add(stamp: WriteStamp, key: string, ttlSeconds: number): void {
    if (stamp.generation !== this.generation || this.maxEntries === 0) return;
    const rowUntilMs = ttlSeconds === 0 ? Infinity : stamp.sentAtMs + ttlSeconds * 1000 - EXPIRY_MARGIN_MS;
    const staleAtMs = Math.min(stamp.sentAtMs + this.maxAgeMs, rowUntilMs);
    const nowMs = this.now();
    if (staleAtMs <= nowMs) return;
    // Re-inserted, so that the order stays the order of writing.
    this.entries.delete(key);
    this.entries.set(key, { staleAtMs, rowUntilMs });
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && entry.staleAtMs > nowMs) break;
      this.entries.delete(oldest);
    }
  }

  /** Forgets `keys` (rows a delete removes) and keeps writes in flight from recording what they wrote. */
  drop(keys: readonly string[]): void {
    this.generation++;
    for (const key of keys) this.entries.delete(key);
  }

  /** Forgets everything (the keyspace or its tables were lost, or may have been). */
  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

/** The keys of the four kinds of index rows; each kind has its own first character, so they never collide. */
export const indexKey = {
  /** A row_keys row, by the row key it lists (latin1: one character per byte). */
  rowKey: (rowKey: Buffer): string => `k${rowKey.toString('latin1')}`,
  /** A tag_indexed_row_keys row: the series' row key in the partition of one `name=value`. */
  tagged: (rowKey: Buffer, pair: string): string => `t${pair.length}:${pair}${rowKey.toString('latin1')}`,
  /** A row_key_time_index row. */
  rowTime: (metric: string, rowTime: number): string => `r${rowTime}:${metric}`,
  /** A string_index row of a metric name. */
  name: (metric: string): string => `n${metric}`,
} as const;

interface Entry {
  /** When the entry is no longer trusted: its age limit, or the row's expiry if sooner. */
  readonly staleAtMs: number;
  /** The earliest the row can expire (Infinity: never). */
  readonly rowUntilMs: number;
}

/**
 * Cassandra expires a row in whole seconds of its own clock, counted from when it applied the write: an entry's row is
 * taken to expire this much before its TTL from the stamp, which also covers a node clock a little behind ours.
 */
const EXPIRY_MARGIN_MS = 60_000;
