/**
 * A decoded remote write → the WriteBatch of the one write path, validated whole before anything is written:
 * `__name__` is the metric, every other label a tag, every sample a double. What KairosDB cannot hold is left out by
 * documented choice and counted (docs/ingest.md): staleness markers, other NaNs and ±Inf (KairosDB's REST and GraphQL
 * have no way to answer them), native histograms and exemplars.
 */
import { dict } from '../lib/dict.js';
import { InputError } from '../model/errors.js';
import { Interned } from '../model/interned.js';
import type { WriteBatch } from '../model/write-batch.js';
import {
  validateWrite,
  type PointInput,
  type SeriesFields,
  type SeriesInput,
  type WriteLimits,
} from '../sources/write-validation.js';
import type { DecodedSeries, DecodedWrite } from './remote-write-decode.js';

const METRIC_LABEL = '__name__';

/** What a request held besides the points stored: the 2.0 answer's counts and /metrics'. */
interface RemoteWriteCounts {
  /** Samples in the batch. */
  readonly stored: number;
  readonly stale: number;
  /** NaNs other than staleness markers. */
  readonly nan: number;
  readonly infinite: number;
  readonly histograms: number;
  readonly exemplars: number;
}

export interface RemoteWriteResult {
  readonly batch: WriteBatch;
  readonly counts: RemoteWriteCounts;
}

/**
 * Throws InputError naming the series' element (`timeseries[2].labels[1].name`, `timeseries[0].samples[3].timestamp`)
 * for the first thing wrong; the whole request is then refused. `allowNoTags`: a series with `__name__` alone is
 * written (KairosDB's REST refuses series without tags, but reads them back; recording rules make such series).
 */
export function remoteWriteBatch(decoded: DecodedWrite, limits: WriteLimits): RemoteWriteResult {
  const inputs: SeriesInput[] = [];
  let stale = 0;
  let nan = 0;
  let infinite = 0;
  let histograms = 0;
  let exemplars = 0;
  decoded.series.forEach((series, i) => {
    const { metric, tags } = labelsOf(decoded.version === 1 ? BY_LABEL_BYTES : BY_LABEL_TEXT, series, i);
    histograms += series.histograms;
    exemplars += series.exemplars;
    // Staleness markers are NaNs, counted with the others below: taken off here, counted as what they are.
    stale += series.staleMarkers;
    nan -= series.staleMarkers;
    const { timestamps, values } = series;
    // Wire indexes of the samples kept, made only once one is left out.
    let kept: number[] | undefined;
    // Made with its first point: a series usually brings one sample a request, and a first push would reserve 17 slots.
    let points: PointInput[] | undefined;
    for (let k = 0; k < values.length; k++) {
      const value = values[k]!;
      if (Number.isFinite(value)) {
        kept?.push(k);
        const point = { timestamp: timestamps[k]!, value };
        if (points === undefined) points = [point];
        else points.push(point);
        continue;
      }
      kept ??= Array.from({ length: points?.length ?? 0 }, (_, j) => j);
      if (Number.isNaN(value)) nan++;
      else infinite++;
    }
    if (points !== undefined)
      inputs.push({ metric, tags, type: 'double', points, fields: new RemoteWriteFields(i, kept) });
  });
  const batch = validateWrite(inputs, 'timeseries', { ...limits, allowNoTags: true });
  let stored = 0;
  for (const series of batch.series) stored += series.timestamps.length;
  return { batch, counts: { stored, stale, nan, infinite, histograms, exemplars } };
}

interface SeriesLabels {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * A sender's series by their labels as each version spells them (DecodedSeries.labelsKey): 1.0's label bytes, which
 * then need no reading, and 2.0's label text. Each request names the same series again.
 */
const BY_LABEL_BYTES = new Interned<SeriesLabels>(kept);
const BY_LABEL_TEXT = new Interned<SeriesLabels>(kept);

function kept({ metric, tags }: SeriesLabels): SeriesLabels {
  return { metric, tags: Object.freeze(tags) };
}

/**
 * The metric and tags of a series; while interned (src/model/interned.ts), the same frozen objects for the same labels
 * in every request.
 */
function labelsOf(table: Interned<SeriesLabels>, series: DecodedSeries, index: number): SeriesLabels {
  return table.of(series.labelsKey, () => readLabels(series.labels(), `timeseries[${index}]`));
}

/** The metric and tags of a series, its labels checked as both specs require: named, not repeated, `__name__` given. */
function readLabels(labels: readonly [string, string][], path: string): SeriesLabels {
  const tags = dict<string>();
  let metric: string | undefined;
  // A series has a few labels: looking back over them costs less than a set made for each series of every request.
  const seen = labels.length > FEW_LABELS ? new Set<string>() : undefined;
  labels.forEach(([name, value], j) => {
    if (name === '') throw new InputError(`${path}.labels[${j}].name`, name, 'must not be empty');
    if (seen ? seen.has(name) : repeats(labels, j))
      throw new InputError(`${path}.labels[${j}].name`, name, 'repeats a label of the series');
    seen?.add(name);
    if (name === METRIC_LABEL) metric = value;
    // An empty value is no label at all in Prometheus's data model.
    else if (value !== '') tags[name] = value;
  });
  if (metric === undefined)
    throw new InputError(`${path}.labels`, Object.fromEntries(labels), `must hold ${METRIC_LABEL}`);
  return { metric, tags };
}

const FEW_LABELS = 16;

/** Whether label `j`'s name is that of a label before it. */
function repeats(labels: readonly [string, string][], j: number): boolean {
  const name = labels[j]![0];
  for (let k = 0; k < j; k++) if (labels[k]![0] === name) return true;
  return false;
}

/**
 * Errors name the request's own elements; `kept[k]` is the wire index of the k-th sample written. A class rather than
 * closures: one is made for every series of every request, and its methods are shared.
 */
class RemoteWriteFields implements SeriesFields {
  constructor(
    private readonly index: number,
    /** Undefined while every sample is kept. */
    private readonly kept: readonly number[] | undefined,
  ) {}

  /** Spelled out only for an error. */
  private get path(): string {
    return `timeseries[${this.index}]`;
  }

  field(name: 'metric' | 'tags' | 'ttl' | 'type', key?: string): string {
    return name === 'metric'
      ? `${this.path}.labels.${METRIC_LABEL}`
      : `${this.path}.labels${key === undefined ? '' : `.${key}`}`;
  }

  point(index: number, name: 'timestamp' | 'value'): string {
    return `${this.path}.samples[${this.kept === undefined ? index : this.kept[index]}].${name}`;
  }
}
