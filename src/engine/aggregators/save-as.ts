/**
 * `save_as` (SaveAsAggregator): passes points through and writes them to `metric_name`, validated like any write.
 * Tags are the given tags, `saved_from=<metric>` (unless add_saved_from is false), and each tag of the query's tag
 * group-by that has exactly one value in the group. The group's points are written when the group ends, once its
 * tags are known; KairosDB queues them for ingest, so neither makes them visible to the query that wrote them.
 */
import { dictOf } from '../../lib/dict.js';
import { InputError } from '../../model/errors.js';
import type { PointKind } from '../point-list.js';
import type { Extra, PointSink } from '../points.js';
import {
  MAX_TTL_SECONDS,
  validateMetricName,
  validateWrite,
  type SeriesInput,
} from '../../sources/write-validation.js';
import type { KeyLimits } from '../../model/key-limits.js';
import type { ValueType } from '../../model/write-batch.js';
import type { StageEnv } from './aggregator.js';
import { defineStream, PointStage } from './stream.js';

export const saveAs = defineStream({
  name: 'save_as',
  accepts: 'any',
  output: 'same',
  nullSafe: false,
  params: [
    { name: 'metric_name', type: 'string', required: true },
    { name: 'tags', type: 'string map', default: {} },
    { name: 'ttl', type: 'integer', default: 0 },
    { name: 'add_saved_from', type: 'boolean', default: true },
  ],
  compile: (p, ctx) => {
    const metric = validateMetricName(p.value('metric_name'), p.field('metric_name'), ctx.limits);
    const tags = p.stringMap('tags');
    const ttlSeconds = p.integer('ttl', 0, MAX_TTL_SECONDS);
    const savedFrom = p.boolean('add_saved_from');
    // KairosDB builds the tags with an ImmutableSortedMap, which fails on a name given twice.
    if (savedFrom && Object.hasOwn(tags, SAVED_FROM))
      throw new InputError(
        p.field('tags', SAVED_FROM),
        tags[SAVED_FROM],
        'clashes with the saved_from tag that the aggregator adds',
      );
    for (const name of ctx.tagGroupBy) {
      if (Object.hasOwn(tags, name))
        throw new InputError(p.field('tags', name), tags[name], 'clashes with a tag the tag group-by adds');
    }
    const { limits } = ctx;
    return (env, next) => {
      if (limits === undefined) throw new Error('save_as was compiled to be planned, without the limits of a source');
      return new SaveAsStage(next, env, { metric, tags, ttlSeconds, savedFrom, groupTags: ctx.tagGroupBy, limits });
    };
  },
});

const SAVED_FROM = 'saved_from';

interface SaveTarget {
  readonly metric: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly ttlSeconds: number;
  readonly savedFrom: boolean;
  readonly groupTags: readonly string[];
  readonly limits: KeyLimits;
}

class SaveAsStage extends PointStage {
  private readonly points: Record<ValueType, { timestamp: number; value: number | bigint | string }[]> = {
    long: [],
    double: [],
    string: [],
  };

  constructor(
    next: PointSink,
    private readonly env: StageEnv,
    private readonly target: SaveTarget,
  ) {
    super(next);
  }

  point(ts: number, kind: PointKind, num: number, extra: Extra): void {
    if (kind === 'complex' || kind === 'null')
      throw new InputError(this.env.fields.path, kind, 'can only save long, double and string points');
    const value = kind === 'string' ? (extra as string) : typeof extra === 'bigint' ? extra : num;
    this.points[kind].push({ timestamp: ts, value });
    this.next.point(ts, kind, num, extra);
  }

  override end(): void {
    const tags = dictOf(Object.entries(this.target.tags));
    if (this.target.savedFrom) tags[SAVED_FROM] = this.env.metric;
    const groupTags = this.env.tags();
    for (const name of this.target.groupTags) {
      const values = groupTags[name];
      if (values !== undefined && values.length === 1) tags[name] = values[0]!;
    }
    const series: SeriesInput[] = (['long', 'double', 'string'] as const)
      .filter((type) => this.points[type].length > 0)
      .map((type) => ({
        metric: this.target.metric,
        tags,
        type,
        ttlSeconds: this.target.ttlSeconds,
        points: this.points[type],
      }));
    if (series.length > 0)
      this.env.save(
        validateWrite(series, `${this.env.fields.path}.series`, {
          maxPoints: Number.MAX_SAFE_INTEGER,
          keys: this.target.limits,
          allowNoTags: true,
        }),
      );
    super.end();
  }
}
