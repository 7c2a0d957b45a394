/**
 * Per-request loaders over the sources' index reads. Every lookup of one request goes through them, so however many
 * aliases or tag selections name a metric, each index read (KairosDB: each (metric, row time) of `row_keys`) is made
 * once per source. They know no layout: a source names each read and its key, and they count the calls by source
 * and read for the request's statistics. They cache metadata only, never points, and live exactly as long as one
 * request, or until a write through the gateway changes a metric they read (its write generation moved: other
 * requests' work may run on these loaders).
 */
import DataLoader from 'dataloader';
import { metricScope } from '../sources/source.js';

/** Index reads made for one request: source name → read name → calls. Scans are counted by the engine. */
export type IndexCallCounts = Map<string, Record<string, number>>;

/** Per-source, per-metric write generations (src/sharing/write-generations.ts). */
export interface Generations {
  of(source: string, metric: string): number;
}

interface IndexRead {
  /** The read's identity within the request: source, read name, metric and key. */
  readonly id: string;
  readonly source: string;
  readonly read: string;
  readonly run: () => Promise<unknown>;
}

export class IndexLoaders {
  readonly calls: IndexCallCounts = new Map();
  private readonly loader: DataLoader<IndexRead, unknown, string>;
  /** The write generation of each source and metric when the loaders first read it. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly generations?: Generations) {
    // Keys that share a batch are read concurrently; the win is that repeated keys are read once.
    this.loader = new DataLoader(
      (reads) =>
        Promise.all(
          reads.map((r) => {
            this.count(r.source, r.read);
            return r.run();
          }),
        ),
      { cacheKeyFn: (r) => r.id },
    );
  }

  /**
   * `run`'s answer, made at most once per request for the same source, read, metric and key. `read` names the index
   * read in statistics (one of the source's `indexReads`); `key` holds every other argument of it.
   */
  load<T>(
    source: string,
    read: string,
    metric: string,
    key: readonly (string | number)[],
    run: () => Promise<T>,
  ): Promise<T> {
    this.checkWrites(source, metric);
    return this.loader.load({ id: JSON.stringify([source, read, metric, ...key]), source, read, run }) as Promise<T>;
  }

  /** Drops cached index reads after this request changed the index (a write or a delete). */
  clear(): void {
    this.loader.clearAll();
  }

  private count(source: string, read: string): void {
    let bySource = this.calls.get(source);
    if (bySource === undefined) this.calls.set(source, (bySource = {}));
    bySource[read] = (bySource[read] ?? 0) + 1;
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
