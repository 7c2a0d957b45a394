/**
 * Parsed line-protocol points → the WriteBatch of the one write path. A bad line is left out and reported, as InfluxDB
 * reports a partial write, while the batch that is written is whole and validated: each field is a series (metric
 * `<measurement><separator><field>`, the line's tags as tags), and a line is written with all its fields or not at all.
 *
 * Lines are validated by series, not one by one: the fields of lines that send the same measurement and tags are
 * checked as one series (its name, tags and key limits once, each point's time and value), and only a series that
 * fails is checked again line by line to find the lines at fault.
 */
import { dictOf } from '../lib/dict.js';
import { InputError } from '../model/errors.js';
import { detached, Interned } from '../model/interned.js';
import { encodeTagString } from '../model/tag-string.js';
import type { SeriesWrite, ValueType, WriteBatch } from '../model/write-batch.js';
import { validateWrite, type SeriesFields, type WriteLimits } from '../sources/write-validation.js';
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
  /** Lines written (every field of each). */
  readonly lines: number;
  readonly points: number;
  readonly rejected: LineError[];
}

/** The points of one field of the lines that send the same measurement and tags, with the line of each. */
interface Group {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly type: ValueType;
  readonly fieldKey: string;
  readonly points: { timestamp: number; value: number | bigint | string }[];
  readonly lines: number[];
}

/** Throws InputError when the lines hold more than `limits.maxPoints` fields in all: the whole body is refused. */
export function lineProtocolBatch(points: readonly LinePoint[], options: LineBatchOptions): LineBatch {
  const { limits, separator, nowMs } = options;
  let total = 0;
  for (const point of points) total += point.fields.length;
  if (total > limits.maxPoints)
    throw new InputError('body', total, `must hold at most ${limits.maxPoints} points in one batch`);
  const withTags = { ...limits, allowNoTags: true };
  const groups = groupBySeries(points, separator, nowMs);

  // Bad lines first: a series that fails is checked line by line, and the first reason of each line is kept.
  const bad = new Map<number, string>();
  const valid = new Map<Group, SeriesWrite>();
  for (const group of groups) {
    try {
      valid.set(group, validateGroup(group, group.points, group.lines, withTags));
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      group.points.forEach((point, k) => {
        const line = group.lines[k]!;
        try {
          validateGroup(group, [point], [line], withTags);
        } catch (lineError) {
          if (!(lineError instanceof InputError)) throw lineError;
          if (!bad.has(line)) bad.set(line, lineError.message);
        }
      });
    }
  }

  // Then the good lines' points, merged by the series they validated to (the same tags in another order are one).
  const merged = new Map<string, { series: SeriesWrite; timestamps: number[]; values: (number | bigint | string)[] }>();
  for (const group of groups) {
    const series = valid.get(group);
    if (series === undefined) continue;
    // The tag string is canonical (sorted names, escaped), as row keys hold it: one series, one key.
    const key = `${series.type}\u0000${series.metric}\u0000${encodeTagString(series.tags)}`;
    let entry = merged.get(key);
    if (entry === undefined) merged.set(key, (entry = { series, timestamps: [], values: [] }));
    for (let k = 0; k < group.lines.length; k++) {
      if (bad.size > 0 && bad.has(group.lines[k]!)) continue;
      entry.timestamps.push(series.timestamps[k]!);
      entry.values.push(series.values[k]!);
    }
  }
  const series = [...merged.values()]
    .filter((entry) => entry.timestamps.length > 0)
    .map(({ series: s, timestamps, values }) => ({ ...s, timestamps, values }));
  let written = 0;
  for (const s of series) written += s.timestamps.length;
  const rejected = [...bad].sort(([a], [b]) => a - b).map(([line, reason]) => ({ line, text: '', reason }));
  return { batch: { series }, lines: points.length - bad.size, points: written, rejected };
}

/** A sender's tags by the text of the measurement and tag set they came with: each request sends them again. */
const TAG_SETS = new Interned<Readonly<Record<string, string>>>((tags) =>
  Object.freeze(dictOf(Object.entries(tags).map(([name, value]) => [detached(name), detached(value)] as const))),
);

function groupBySeries(points: readonly LinePoint[], separator: string, nowMs: number): Group[] {
  const groups: Group[] = [];
  // By the series' text as sent, then by type and field key (a type has no ':', so `type:field` is unambiguous).
  const bySeries = new Map<string, Map<string, Group>>();
  for (const point of points) {
    let fields = bySeries.get(point.series);
    if (fields === undefined) bySeries.set(point.series, (fields = new Map()));
    let tags: Record<string, string> | undefined;
    for (const [fieldKey, field] of point.fields) {
      const key = `${field.type}:${fieldKey}`;
      let group = fields.get(key);
      if (group === undefined) {
        tags ??= TAG_SETS.of(point.series, () => dictOf(point.tags));
        group = {
          metric: `${point.measurement}${separator}${fieldKey}`,
          tags,
          type: field.type,
          fieldKey,
          points: [],
          lines: [],
        };
        fields.set(key, group);
        groups.push(group);
      }
      group.points.push({ timestamp: point.timestampMs ?? nowMs, value: field.value });
      group.lines.push(point.line);
    }
  }
  return groups;
}

function validateGroup(
  group: Group,
  points: Group['points'],
  lines: readonly number[],
  limits: WriteLimits,
): SeriesWrite {
  const input = {
    metric: group.metric,
    tags: group.tags,
    type: group.type,
    points,
    fields: new LineFields(lines, group),
  };
  return validateWrite([input], 'body', limits).series[0]!;
}

/**
 * How errors name a line's parts: `line 3: field "usage"`, `line 3: tag "host"`, `line 3: metric name`. A class rather
 * than closures: one is made for every series of every request, and its methods are shared.
 */
class LineFields implements SeriesFields {
  readonly path: string;

  constructor(
    private readonly lines: readonly number[],
    private readonly group: Group,
  ) {
    this.path = `line ${lines[0]}:`;
  }

  field(name: 'metric' | 'tags' | 'ttl' | 'type', key?: string): string {
    const { path } = this;
    return name === 'metric'
      ? `${path} metric name`
      : name === 'tags'
        ? `${path} ${key === undefined ? 'tags' : `tag ${JSON.stringify(key)}`}`
        : `${path} ${name}`;
  }

  point(index: number, name: 'timestamp' | 'value'): string {
    return `line ${this.lines[index]}: ${name === 'timestamp' ? 'timestamp' : `field ${JSON.stringify(this.group.fieldKey)}`}`;
  }
}
