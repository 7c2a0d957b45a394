/**
 * A source as the gateway's requests see it: its partition reads are shared with identical reads under way, and every
 * write and delete bumps its metrics' write generations once the source has answered (acknowledged or failed: a
 * failed batch may have landed in part), with the earliest point time it touched, which makes in-flight shared work
 * of those metrics unreachable to every reader that starts afterwards and tells the results cache which of its ranges
 * may have changed. save_as writes go through it too, since the engine writes through its context's source.
 */
import type { IndexLoaders } from '../sources/index-loaders.js';
import type { TimeRange } from '../model/query.js';
import type { SeriesPredicate } from '../model/tag-filter.js';
import type { PingReport } from '../model/health.js';
import type { Partition, Slice } from '../model/series.js';
import type { ReadOptions } from '../model/read-options.js';
import type { Capabilities } from '../sources/capabilities.js';
import type { KeyLimits } from '../model/key-limits.js';
import type { WriteBatch } from '../model/write-batch.js';
import type { DeletedPart, FindSeriesOptions, SeriesPlan, Source } from '../sources/source.js';
import type { SharedScans } from './shared-scans.js';
import type { WriteGenerations } from './write-generations.js';

export class InvalidatingSource implements Source {
  constructor(
    private readonly inner: Source,
    private readonly generations: WriteGenerations,
    private readonly scans: SharedScans,
  ) {}

  get name(): string {
    return this.inner.name;
  }

  get layout(): string {
    return this.inner.layout;
  }

  get writable(): boolean {
    return this.inner.writable;
  }

  get limits(): KeyLimits {
    return this.inner.limits;
  }

  get readAhead(): number {
    return this.inner.readAhead;
  }

  get concurrentReads(): number {
    return this.inner.concurrentReads;
  }

  get indexReads(): readonly string[] {
    return this.inner.indexReads;
  }

  get capabilities(): Capabilities {
    return this.inner.capabilities;
  }

  metricNames(prefix: string, limit?: number): Promise<string[]> {
    return this.inner.metricNames(prefix, limit);
  }

  findSeries(
    index: IndexLoaders,
    metric: string,
    range: TimeRange,
    matches: SeriesPredicate,
    options?: FindSeriesOptions,
  ): Promise<SeriesPlan> {
    return this.inner.findSeries(index, metric, range, matches, options);
  }

  read(key: Partition, startMs: number, endMs: number, options?: ReadOptions): AsyncIterable<Slice> {
    return this.scans.scan(this.inner, key, startMs, endMs, options);
  }

  async write(batch: WriteBatch): Promise<void> {
    try {
      await this.inner.write(batch);
    } finally {
      const earliest = new Map<string, number>();
      for (const s of batch.series) {
        let ms = earliest.get(s.metric) ?? Infinity;
        for (const t of s.timestamps) if (t < ms) ms = t;
        earliest.set(s.metric, ms);
      }
      for (const [metric, ms] of earliest) this.generations.bump(this.inner.name, metric, ms);
    }
  }

  async deleteRange(key: Partition, startMs: number, endMs: number): Promise<DeletedPart> {
    try {
      return await this.inner.deleteRange(key, startMs, endMs);
    } finally {
      this.generations.bump(this.inner.name, key.metric, startMs);
    }
  }

  async deleteMetricName(metric: string): Promise<void> {
    try {
      await this.inner.deleteMetricName(metric);
    } finally {
      this.generations.bump(this.inner.name, metric);
    }
  }

  // biome-ignore lint/suspicious/noConfusingVoidType: a store with nothing to report resolves with nothing.
  ping(): Promise<PingReport | void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
