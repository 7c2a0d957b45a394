/**
 * Parsed line-protocol points → the WriteBatch of the one write path. A bad line is left out and reported, as InfluxDB
 * reports a partial write, while the batch that is written is whole and validated: each field is a series (metric
 * `<measurement><separator><field>`, the line's tags as tags), and a line is written with all its fields or not at all.
 *
 * Lines are validated by series, not one by one: the fields of lines that send the same measurement and tags are
 * checked as one series (its name, tags and key limits once, each point's time and value), and only a series that
 * fails is checked again line by line to find the lines at fault.
 */
import { InputError } from '../model/errors.js';
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
  const validated = new Map<Group, SeriesWrite>();
  for (const group of groups) {
    try {
      validated.set(group, validateGroup(group, group.points, group.lines, withTags));
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

  // Then the good lines' points. Lines of one series in another tag order are groups of their own: the write path takes
  // a series named twice in a batch as one, as it does a REST body's.
  const series: SeriesWrite[] = [];
  for (const group of groups) {
    const valid = validated.get(group);
    if (valid === undefined) continue;
    if (bad.size === 0) {
      series.push(valid);
      continue;
    }
    const timestamps: number[] = [];
    const values: (number | bigint | string)[] = [];
    for (let k = 0; k < group.lines.length; k++) {
      if (bad.has(group.lines[k]!)) continue;
      timestamps.push(valid.timestamps[k]!);
      values.push(valid.values[k]!);
    }
    if (timestamps.length > 0) series.push({ ...valid, timestamps, values });
  }
  let written = 0;
  for (const s of series) written += s.timestamps.length;
  const rejected = [...bad].sort(([a], [b]) => a - b).map(([line, reason]) => ({ line, text: '', reason }));
  return { batch: { series }, lines: points.length - bad.size, points: written, rejected };
}

function groupBySeries(points: readonly LinePoint[], separator: string, nowMs: number): Group[] {
  const groups: Group[] = [];
  // By the series' text as sent; its fields' groups are few, and found by field key and type in a list.
  const bySeries = new Map<string, Group[]>();
  // The groups of a series of more fields than that, by type and field key (a type has no ':'), so that a line of
  // hundreds of fields never costs their square.
  let wide: Map<Group[], Map<string, Group>> | undefined;
  for (const point of points) {
    let fields = bySeries.get(point.series);
    for (const [fieldKey, field] of point.fields) {
      const sent = { timestamp: point.timestampMs ?? nowMs, value: field.value };
      let group: Group | undefined;
      const byKey = fields !== undefined && fields.length > FEW_GROUPS ? wide?.get(fields) : undefined;
      if (byKey !== undefined) group = byKey.get(`${field.type}:${fieldKey}`);
      else if (fields !== undefined)
        for (const other of fields)
          if (other.fieldKey === fieldKey && other.type === field.type) {
            group = other;
            break;
          }
      if (group !== undefined) {
        group.points.push(sent);
        group.lines.push(point.line);
        continue;
      }
      // Literal arrays of one: a sender usually brings one line a series, and a first push would reserve 17 slots.
      group = {
        metric: `${point.measurement}${separator}${fieldKey}`,
        tags: point.tags,
        type: field.type,
        fieldKey,
        points: [sent],
        lines: [point.line],
      };
      groups.push(group);
      if (fields === undefined) {
        bySeries.set(point.series, (fields = [group]));
        continue;
      }
      fields.push(group);
      if (byKey !== undefined) byKey.set(`${group.type}:${fieldKey}`, group);
      else if (fields.length > FEW_GROUPS) {
        wide ??= new Map();
        wide.set(fields, new Map(fields.map((g) => [`${g.type}:${g.fieldKey}`, g])));
      }
    }
  }
  return groups;
}

/** Groups of one series looked up in a list; past this, by key. */
const FEW_GROUPS = 16;

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
  constructor(
    private readonly lines: readonly number[],
    private readonly group: Group,
  ) {}

  field(name: 'metric' | 'tags' | 'ttl' | 'type', key?: string): string {
    const path = `line ${this.lines[0]}:`;
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
