/**
 * Copying series between two sources (`npm run copy`): every partition of the chosen metrics in a time range, read
 * through one source's `read` and written through the other's `write` in bounded batches, its progress kept in a
 * state file so that a killed run resumes, then every series copied read back on both sides and compared.
 */
import { InputError } from '../model/errors.js';
import { IndexLoaders } from '../sources/index-loaders.js';
import type { TimeRange } from '../model/query.js';
import { encodeTagString } from '../model/tag-string.js';
import { validateWrite, type PointInput, type SeriesInput } from '../sources/write-validation.js';
import type { Partition, Slice } from '../model/series.js';
import type { SeriesWrite, ValueType } from '../model/write-batch.js';
import type { Source } from '../sources/source.js';
import { CopyError, CopyState, partitionId } from './copy-state.js';
import { describeSeries, readBack, type Mismatch } from './read-back.js';

export { CopyError } from './copy-state.js';

/** Points per write when the caller does not say: small enough for any store's batch, large enough to be cheap. */
export const DEFAULT_BATCH_POINTS = 10_000;

export interface CopyOptions {
  readonly from: Source;
  readonly to: Source;
  /** Metrics to copy; absent: every metric of `from` (`metricNames('')`), listed again by each run. */
  readonly metrics?: readonly string[];
  /** Both ends inclusive, as `read` takes them. */
  readonly range: TimeRange;
  /** The resume file (copy-state.ts). */
  readonly statePath: string;
  /** Start over, replacing the state file whatever it holds. */
  readonly fresh?: boolean;
  /** Most points of one `write` (default DEFAULT_BATCH_POINTS). */
  readonly batchPoints?: number;
  /** Copy nothing and touch no state: only read back and compare. */
  readonly verifyOnly?: boolean;
  /** Called after each partition, copied or skipped. */
  readonly onProgress?: (progress: CopyProgress) => void;
  /** Lines for the user (resuming, warnings of the source). */
  readonly onNotice?: (line: string) => void;
  /** Runs between the copy and the read-back (tests change the destination there). */
  readonly beforeReadBack?: () => Promise<void>;
  /** How often to look whether a source's catalogue has ended its pass (default 1 s). */
  readonly cataloguePollMs?: number;
}

export interface CopyProgress {
  readonly partitionsDone: number;
  readonly partitionsTotal: number;
  /** Points written by this run. */
  readonly points: number;
  /** Partitions of this run's total that an earlier run had copied. */
  readonly skipped: number;
  readonly elapsedMs: number;
  readonly phase: 'copy' | 'read-back';
}

export interface CopyResult {
  /** Points written by this run. */
  readonly points: number;
  /** Series (metric and tags) with points in the range: those copied and compared. */
  readonly series: number;
  /** Partitions with points in the range, copied by this run or an earlier one. */
  readonly partitions: number;
  /** Partitions an earlier run had copied, skipped by this one. */
  readonly skipped: number;
  readonly copySeconds: number;
  readonly mismatches: readonly Mismatch[];
}

const ALL_SERIES = (): boolean => true;

/**
 * A source that finds its series through a catalogue of its own (Heroic's table) knows only what its scan has seen:
 * the copy waits for a pass over the whole table that ends after it started, so it copies every series the table
 * held when it began, not those a pass half done or a day old happened to list.
 */
async function wholeCatalogue(source: Source, options: CopyOptions): Promise<void> {
  if (source.capabilities.catalogue?.status().kind !== 'scan') return;
  const since = Date.now();
  let said = 0;
  for (;;) {
    const status = source.capabilities.catalogue?.status();
    if (status === undefined || (status.lastPassEndedMs !== undefined && status.lastPassEndedMs >= since)) return;
    if (Date.now() - said >= 10_000) {
      options.onNotice?.(
        `waiting for ${source.name}'s catalogue to list the whole table: ${status.keysScanned} keys read, ${Math.floor(status.progress * 100)}% of the ring`,
      );
      said = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, options.cataloguePollMs ?? 1000));
  }
}

export async function copySeries(options: CopyOptions): Promise<CopyResult> {
  const { from, to, range } = options;
  const batchPoints = options.batchPoints ?? DEFAULT_BATCH_POINTS;
  if (!to.writable) throw new CopyError(`--to must be a writable source (got ${JSON.stringify(to.name)})`, 2);
  await wholeCatalogue(from, options);
  const metrics = options.metrics ?? (await from.metricNames(''));
  const started = performance.now();

  // Phase 1, plan: partitions counted for the progress bar, and complex series refused before anything is written.
  let partitionsTotal = 0;
  let seriesTotal = 0;
  for (const metric of metrics) {
    const plan = await from.findSeries(new IndexLoaders(), metric, range, ALL_SERIES);
    for (const warning of plan.warnings) options.onNotice?.(`warning: ${warning}`);
    const series = new Set<string>();
    for (const key of plan.partitions) {
      if (key.kind === 'complex') {
        throw new CopyError(
          `metric ${JSON.stringify(metric)} holds complex points (series ${describeSeries(metric, key.tags)}, data type ${key.dataType}), which cannot be copied: the write path has no complex type. Name the other metrics with --metric`,
        );
      }
      series.add(encodeTagString(key.tags));
    }
    partitionsTotal += plan.partitions.length;
    seriesTotal += series.size;
  }

  let points = 0;
  let skipped = 0;
  let partitionsDone = 0;
  const progress = (phase: CopyProgress['phase']): void =>
    options.onProgress?.({
      partitionsDone,
      partitionsTotal,
      points,
      skipped,
      elapsedMs: performance.now() - started,
      phase,
    });

  if (options.verifyOnly !== true) {
    const state = CopyState.open(
      options.statePath,
      {
        from: from.name,
        to: to.name,
        metrics: options.metrics === undefined ? null : [...metrics],
        startMs: range.startMs,
        endMs: range.endMs,
      },
      options.fresh === true,
    );
    try {
      if (state.size > 0)
        options.onNotice?.(`resuming ${state.path}: ${state.size} partitions were copied before and are skipped`);
      const batch = new WriteBuffer(to, batchPoints, (ids, written) => {
        state.record(ids);
        points += written;
      });
      // Phase 2, copy, metric by metric: one metric's plan in memory at a time.
      for (const metric of metrics) {
        const plan = await from.findSeries(new IndexLoaders(), metric, range, ALL_SERIES);
        for (const key of plan.partitions) {
          const id = partitionId(key);
          if (state.has(id)) skipped++;
          else {
            for await (const slice of from.read(key, range.startMs, range.endMs)) await batch.add(key, slice);
            batch.endPartition(id);
          }
          partitionsDone++;
          progress('copy');
        }
      }
      await batch.flush();
      progress('copy');
    } finally {
      state.close();
    }
  }
  const copySeconds = (performance.now() - started) / 1000;

  await options.beforeReadBack?.();
  // Phase 3, read back: every series of the range on both sides.
  const check = await readBack(from, to, metrics, range);
  progress('read-back');
  return {
    points,
    series: seriesTotal,
    partitions: partitionsTotal,
    skipped,
    copySeconds,
    mismatches: check.mismatches,
  };
}

/** The final line of a run. */
export function summary(result: CopyResult): string {
  const partitions =
    result.skipped > 0
      ? `${result.partitions} partitions, ${result.skipped} of them copied by an earlier run`
      : `${result.partitions} partitions`;
  const head = `copied ${result.points} points of ${result.series} series (${partitions}) in ${result.copySeconds.toFixed(1)} s`;
  if (result.mismatches.length === 0) return `${head}; read back: counts and sums equal`;
  const shown = result.mismatches
    .slice(0, 20)
    .map((m) => `  ${m.series}: source ${m.source}; destination ${m.destination}`);
  const more = result.mismatches.length > 20 ? [`  ... and ${result.mismatches.length - 20} more`] : [];
  return [`${head}; read back: ${result.mismatches.length} series differ:`, ...shown, ...more].join('\n');
}

/**
 * Points on their way to the destination: at most `batchPoints` held, written as one validated batch; partitions
 * whose last points went out with a batch are handed to `flushed` once the destination has them durably.
 */
class WriteBuffer {
  private series: (SeriesInput & { readonly points: PointInput[] })[] = [];
  private held = 0;
  /** Partitions whose every point is in `series`. */
  private ended: string[] = [];

  constructor(
    private readonly to: Source,
    private readonly batchPoints: number,
    private readonly flushed: (ids: readonly string[], points: number) => void,
  ) {}

  async add(key: Partition, slice: Slice): Promise<void> {
    if (slice.kind === 'complex')
      throw new CopyError(
        `metric ${JSON.stringify(key.metric)} holds complex points (series ${describeSeries(key.metric, key.tags)}), which cannot be copied: the write path has no complex type`,
      );
    const type: ValueType = slice.kind;
    const n = slice.timestamps.length;
    let last = this.series.at(-1);
    for (let i = 0; i < n; i++) {
      // A legacy partition yields longs and doubles in runs: each run goes to a series of its own type.
      if (last === undefined || last.metric !== key.metric || last.type !== type || last.tags !== key.tags) {
        last = { metric: key.metric, tags: key.tags, type, ttlSeconds: 0, points: [] };
        this.series.push(last);
      }
      const value = slice.kind === 'long' && slice.exact !== undefined ? slice.exact[i]! : slice.values[i]!;
      last.points.push({ timestamp: slice.timestamps[i]!, value });
      if (++this.held >= this.batchPoints) {
        await this.flush();
        last = undefined;
      }
    }
  }

  endPartition(id: string): void {
    if (this.held === 0) this.flushed([id], 0);
    else this.ended.push(id);
  }

  async flush(): Promise<void> {
    const writes = this.series.map((series) => validated(series, this.to));
    const [ids, held] = [this.ended, this.held];
    this.series = [];
    this.ended = [];
    this.held = 0;
    if (writes.length > 0) await this.to.write({ series: writes });
    this.flushed(ids, held);
  }
}

/** The project's write validation, against the destination's key limits; a refusal names the series. */
function validated(series: SeriesInput, to: Source): SeriesWrite {
  try {
    return validateWrite([series], 'series', { maxPoints: Number.MAX_SAFE_INTEGER, allowNoTags: true, keys: to.limits })
      .series[0]!;
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    const problem = error.message.replace(/^series\[0\]\.?/, '');
    throw new CopyError(
      `series ${describeSeries(series.metric as string, series.tags as Record<string, string>)} cannot be written to ${JSON.stringify(to.name)}: ${problem}`,
    );
  }
}
