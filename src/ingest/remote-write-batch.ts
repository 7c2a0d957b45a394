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
import { validateWrite, type SeriesFields, type SeriesInput, type WriteLimits } from '../sources/write-validation.js';
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
    const path = `timeseries[${i}]`;
    const { metric, tags } = labelsOf(series, path);
    histograms += series.histograms;
    exemplars += series.exemplars;
    const kept: number[] = [];
    const points: { timestamp: number; value: number }[] = [];
    for (let k = 0; k < series.values.length; k++) {
      const value = series.values[k]!;
      if (Number.isFinite(value)) {
        kept.push(k);
        points.push({ timestamp: series.timestamps[k]!, value });
      } else if (series.stale[k]) stale++;
      else if (Number.isNaN(value)) nan++;
      else infinite++;
    }
    if (points.length > 0)
      inputs.push({ metric, tags, type: 'double', points, fields: new RemoteWriteFields(path, kept) });
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

/** A sender's series by the text of their labels: each request names the same series again. */
const LABEL_SETS = new Interned<SeriesLabels>(({ metric, tags }) => ({ metric, tags: Object.freeze(tags) }));

/**
 * The metric and tags of a series; while interned (src/model/interned.ts), the same frozen objects for the same labels
 * in every request. The text they are interned by spells each label with its lengths, so no two label lists share one.
 */
function labelsOf(series: DecodedSeries, path: string): SeriesLabels {
  let text = '';
  for (const [name, value] of series.labels) {
    // A length a character cannot spell: not interned (row keys hold no such label anyway).
    if (name.length > 0xffff || value.length > 0xffff) return readLabels(series, path);
    text += String.fromCharCode(name.length) + name + String.fromCharCode(value.length) + value;
  }
  return LABEL_SETS.of(text, () => readLabels(series, path));
}

/** The metric and tags of a series, its labels checked as both specs require: named, not repeated, `__name__` given. */
function readLabels(series: DecodedSeries, path: string): SeriesLabels {
  const tags = dict<string>();
  let metric: string | undefined;
  const { labels } = series;
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
    throw new InputError(`${path}.labels`, Object.fromEntries(series.labels), `must hold ${METRIC_LABEL}`);
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
    readonly path: string,
    private readonly kept: readonly number[],
  ) {}

  field(name: 'metric' | 'tags' | 'ttl' | 'type', key?: string): string {
    return name === 'metric'
      ? `${this.path}.labels.${METRIC_LABEL}`
      : `${this.path}.labels${key === undefined ? '' : `.${key}`}`;
  }

  point(index: number, name: 'timestamp' | 'value'): string {
    return `${this.path}.samples[${this.kept[index]}].${name}`;
  }
}
