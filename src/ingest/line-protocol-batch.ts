/**
 * Parsed line-protocol points → the WriteBatch of the one write path. Each line is validated on its own (names, key
 * limits, values, times), so a bad line is left out and reported, as InfluxDB reports a partial write, while the batch
 * that is written is whole and validated. Each field is a series: metric `<measurement><separator><field>`, the line's
 * tags as tags.
 */
import { dictOf } from '../lib/dict.js';
import { InputError } from '../model/errors.js';
import type { SeriesWrite, WriteBatch } from '../model/write-batch.js';
import { validateWrite, type SeriesFields, type SeriesInput, type WriteLimits } from '../sources/write-validation.js';
import type { LineError, LinePoint } from './line-protocol.js';

export interface LineBatchOptions {
  /** The time of a line without a timestamp: the request's. */
  readonly nowMs: number;
  /** Between the measurement and the field in a metric name (INFLUX_METRIC_SEPARATOR). */
  readonly separator: string;
  readonly limits: WriteLimits;
}

export interface LineBatch {
  readonly batch: WriteBatch;
  /** Lines whose points passed validation; each line's fields are written together or not at all. */
  readonly lines: number;
  readonly points: number;
  readonly rejected: LineError[];
}

/** Throws InputError when the valid lines hold more than `limits.maxPoints` fields in all: the whole body is refused. */
export function lineProtocolBatch(points: readonly LinePoint[], options: LineBatchOptions): LineBatch {
  const { limits, separator, nowMs } = options;
  let total = 0;
  for (const point of points) total += point.fields.length;
  if (total > limits.maxPoints)
    throw new InputError('body', total, `must hold at most ${limits.maxPoints} points in one batch`);
  const rejected: LineError[] = [];
  const merged = new Map<string, { series: SeriesWrite; timestamps: number[]; values: (number | bigint | string)[] }>();
  let lines = 0;
  for (const point of points) {
    const tags = dictOf(point.tags);
    const inputs: SeriesInput[] = point.fields.map(([key, field]) => ({
      metric: `${point.measurement}${separator}${key}`,
      tags,
      type: field.type,
      points: [{ timestamp: point.timestampMs ?? nowMs, value: field.value }],
      fields: lineFields(point.line, key),
    }));
    let valid: WriteBatch;
    try {
      valid = validateWrite(inputs, `line ${point.line}`, { ...limits, allowNoTags: true });
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      rejected.push({ line: point.line, text: '', reason: error.message });
      continue;
    }
    lines++;
    for (const series of valid.series) {
      const key = `${series.type}\u0000${series.metric}\u0000${JSON.stringify(Object.entries(series.tags))}`;
      let entry = merged.get(key);
      if (entry === undefined) merged.set(key, (entry = { series, timestamps: [], values: [] }));
      entry.timestamps.push(...series.timestamps);
      entry.values.push(...series.values);
    }
  }
  const series = [...merged.values()].map(({ series: s, timestamps, values }) => ({ ...s, timestamps, values }));
  return { batch: { series }, lines, points: total - countFields(points, rejected), rejected };
}

/** How errors name a line's parts: `line 3: field "usage"`, `line 3: tag host`, `line 3: metric name`. */
function lineFields(line: number, fieldKey: string): SeriesFields {
  const path = `line ${line}:`;
  return {
    path,
    field: (name, key) =>
      name === 'metric'
        ? `${path} metric name`
        : name === 'tags'
          ? `${path} ${key === undefined ? 'tags' : `tag ${JSON.stringify(key)}`}`
          : `${path} ${name}`,
    point: (_index, name) => (name === 'timestamp' ? `${path} timestamp` : `${path} field ${JSON.stringify(fieldKey)}`),
  };
}

function countFields(points: readonly LinePoint[], rejected: readonly LineError[]): number {
  if (rejected.length === 0) return 0;
  const lines = new Set(rejected.map((r) => r.line));
  let n = 0;
  for (const point of points) if (lines.has(point.line)) n += point.fields.length;
  return n;
}
