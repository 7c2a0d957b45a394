/**
 * The points of one TCP connection waiting to be written: each line's point is validated alone through the one write
 * validation (so a bad line is refused by itself, never the lines around it) and grouped by series into a WriteBatch.
 */
import { InputError } from '../model/errors.js';
import type { KeyLimits } from '../model/key-limits.js';
import type { SeriesWrite, ValueType, WriteBatch } from '../model/write-batch.js';
import { validateWrite, type SeriesFields } from '../sources/write-validation.js';

/** One point as a line protocol read it, before validation. */
export interface LinePoint {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly type: ValueType;
  readonly timestampMs: number;
  readonly value: number | bigint | string;
  /** 0: no expiry. */
  readonly ttlSeconds: number;
}

export class LineBatch {
  private series = new Map<
    string,
    { write: SeriesWrite; timestamps: number[]; values: (number | bigint | string)[] }
  >();
  /** Points held. */
  size = 0;

  constructor(private readonly keys: KeyLimits) {}

  /** Validates `point` and holds it; throws the InputError of validateWrite, naming the line's own words. */
  add(point: LinePoint): void {
    const [write] = validateWrite(
      [
        {
          metric: point.metric,
          tags: point.tags,
          type: point.type,
          ttlSeconds: point.ttlSeconds,
          points: [{ timestamp: point.timestampMs, value: point.value }],
          fields: LINE_FIELDS,
        },
      ],
      'line',
      // A Graphite path without tags is a series of its own, as in Graphite; KairosDB's telnet always gives a tag.
      { maxPoints: 1, allowNoTags: true, keys: this.keys },
    ).series;
    const key = seriesKey(write!);
    const held = this.series.get(key);
    if (held === undefined) {
      this.series.set(key, { write: write!, timestamps: [...write!.timestamps], values: [...write!.values] });
    } else {
      held.timestamps.push(write!.timestamps[0]!);
      held.values.push(write!.values[0]!);
    }
    this.size++;
  }

  /** The held points as one batch; the batch starts empty again. */
  take(): WriteBatch {
    const series = [...this.series.values()].map(({ write, timestamps, values }) => ({ ...write, timestamps, values }));
    this.series = new Map();
    this.size = 0;
    return { series };
  }
}

/** A line's words, as errors name them: `metric`, `tag host`, `timestamp`, `value`. */
const LINE_FIELDS: SeriesFields = {
  field: (name, key) => (key === undefined ? name : `tag ${key}`),
  point: (_index, name) => name,
};

/** Series differ by metric, tags, type and TTL (a TTL is per write, so two TTLs are two writes). */
function seriesKey(write: SeriesWrite): string {
  let key = `${write.type}\u0000${write.ttlSeconds}\u0000${write.metric}`;
  for (const name in write.tags) key += `\u0000${name}\u0000${write.tags[name]}`;
  return key;
}

/** The reason of a refused point, for the log: validateWrite's message. */
export function refusalOf(error: unknown): string | undefined {
  return error instanceof InputError ? error.message : undefined;
}
