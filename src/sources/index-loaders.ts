/**
 * Per-request loaders over the sources' index reads. Every lookup of one request goes through them, so however many
 * aliases or tag selections name a metric, each index read (KairosDB: each (metric, row time) of `row_keys`) is made
 * once per source, and the reads of one metric that the request asks for in the same tick are made together, as one
 * batch read of the source (KairosDB: a metric's row_keys at all its row times in one statement). They know no
 * layout: a source names each read, its keys and how to read many of them, and they count the keys read by source and
 * read for the request's statistics. They cache metadata only, never points, and live exactly as long as one request,
 * or until a write through the gateway changes a metric they read (its write generation moved: other requests' work
 * may run on these loaders).
 */
import type { TraceHolder } from '../lib/trace.js';
import DataLoader from 'dataloader';
import { metricScope } from './metric-scope.js';

/** Index reads made for one request: source name → read name → keys read. Scans are counted by the engine. */
export type IndexCallCounts = Map<string, Record<string, number>>;

/** Per-source, per-metric write generations (src/sharing/write-generations.ts). */
export interface Generations {
  of(source: string, metric: string): number;
}

/**
 * One index read of one source, as its loaders batch it. A source makes one of each of its reads and hands it to
 * every load, so that the keys of one tick find their read by identity.
 */
export interface IndexRead<K, V> {
  /** The source's name. */
  readonly source: string;
  /** The read's name in statistics: one of the source's `indexReads`. */
  readonly name: string;
  /**
   * Reads every key of `metric` asked for in one tick, and answers in the keys' order (each key once). A key that fails
   * alone may be answered with its Error; a rejection fails every key of the call.
   */
  readMany(metric: string, keys: readonly K[]): Promise<readonly (V | Error)[]>;
}

interface Load {
  /** The load's identity within the request: source, read name, metric and key. */
  readonly id: string;
  // biome-ignore lint/suspicious/noExplicitAny: the loaders hold reads of every key and value type; load() types each.
  readonly read: IndexRead<any, unknown>;
  readonly metric: string;
  readonly key: unknown;
}

export class IndexLoaders {
  readonly calls: IndexCallCounts = new Map();
  private readonly loader: DataLoader<Load, unknown, string>;
  /** The write generation of each source and metric when the loaders first read it. */
  private readonly seen = new Map<string, number>();

  /**
   * `trace` holds the span each batch read is a child of: the request's current one when the batch runs (a tick
   * gathers the loads of every query of the request, so a read belongs to the request, not to one query).
   */
  constructor(
    private readonly generations?: Generations,
    private readonly trace?: TraceHolder,
  ) {
    this.loader = new DataLoader((loads) => this.readBatch(loads), { cacheKeyFn: (load) => load.id });
  }

  /**
   * What `read` answers for `metric` and `key`, read at most once per request (the same source, read, metric and key),
   * together with the other keys of `read` and `metric` asked for in the same tick. `key` is JSON: its text tells keys
   * apart.
   */
  load<K, V>(read: IndexRead<K, V>, metric: string, key: K): Promise<V> {
    this.checkWrites(read.source, metric);
    const id = JSON.stringify([read.source, read.name, metric, key]);
    return this.loader.load({ id, read, metric, key }) as Promise<V>;
  }

  /** Drops cached index reads after this request changed the index (a write or a delete). */
  clear(): void {
    this.loader.clearAll();
  }

  /**
   * One tick's loads: grouped by read and metric, each group one batch read, all groups at once. A failed read is not
   * remembered: the request may ask again, as it could when each key was read alone.
   */
  private async readBatch(loads: readonly Load[]): Promise<unknown[]> {
    const groups = new Map<Load['read'], Map<string, number[]>>();
    loads.forEach((load, i) => {
      let byMetric = groups.get(load.read);
      if (byMetric === undefined) groups.set(load.read, (byMetric = new Map()));
      const at = byMetric.get(load.metric);
      if (at === undefined) byMetric.set(load.metric, [i]);
      else at.push(i);
    });
    const results = new Array<unknown>(loads.length);
    const reads: Promise<void>[] = [];
    for (const [read, byMetric] of groups) {
      for (const [metric, at] of byMetric) {
        this.count(read.source, read.name, at.length);
        const span = this.trace?.span.child('index read', {
          'kairograph.source': read.source,
          'kairograph.read': read.name,
          'kairograph.metric': metric,
          'kairograph.keys': at.length,
        });
        reads.push(
          read
            .readMany(
              metric,
              at.map((i) => loads[i]!.key),
            )
            .then(
              (values) => {
                if (values.length !== at.length)
                  throw new Error(`${read.source}'s ${read.name} answered ${values.length} keys for ${at.length}`);
                for (const [k, i] of at.entries()) results[i] = values[k];
              },
              (error: unknown) => {
                const failure = error instanceof Error ? error : new Error(String(error));
                span?.fail(failure);
                for (const i of at) results[i] = failure;
              },
            )
            .finally(() => span?.end()),
        );
      }
    }
    await Promise.all(reads);
    loads.forEach((load, i) => {
      if (results[i] instanceof Error) this.loader.clear(load);
    });
    return results;
  }

  private count(source: string, read: string, keys: number): void {
    let bySource = this.calls.get(source);
    if (bySource === undefined) this.calls.set(source, (bySource = {}));
    bySource[read] = (bySource[read] ?? 0) + keys;
  }

  /** Forgets everything read once a metric it read was written since (writes are rare next to reads). */
  private checkWrites(source: string, metric: string): void {
    if (this.generations === undefined) return;
    const now = this.generations.of(source, metric);
    const id = metricScope(source, metric);
    const then = this.seen.get(id);
    if (then !== undefined && then !== now) {
      this.clear();
      this.seen.clear();
    }
    this.seen.set(id, now);
  }
}

/**
 * A read whose keys are each read on their own, all at once (the store's own request limit bounds how many run): for
 * reads a source cannot make together, or whose keys rarely meet in one tick.
 */
export function eachAlone<K, V>(
  source: string,
  name: string,
  readOne: (metric: string, key: K) => Promise<V>,
): IndexRead<K, V> {
  return {
    source,
    name,
    readMany: (metric, keys) =>
      Promise.all(
        keys.map((key) =>
          readOne(metric, key).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
        ),
      ),
  };
}
