/**
 * The result groups of one row group (a type, a tag group, or one series): routes points to the groups of the
 * time/value/bin group-bys, applies the metric's limit, and runs each group's aggregator pipeline, keeping
 * KairosDB's rules for which aggregators apply to which group type and in which order groups come out.
 */
import type { FieldNames } from '../model/query.js';
import { dict } from '../lib/dict.js';
import type { Partition, Slice, Tags } from '../model/series.js';
import type { WriteBatch } from '../model/write-batch.js';
import type { AggregatorDefinition, BucketObserver, GroupType, StageEnv } from './aggregators/aggregator.js';
import type { CompiledAggregator } from './aggregators/registry.js';
import type { BudgetTracker } from './budget.js';
import type { GroupByResult, GroupBys } from './group-by/group-by.js';
import { OutputSink, type GroupOutput } from './output.js';
import { PointList, bigExtra } from './point-list.js';
import { compareInStream, tieAt, type Extra, type Order, type PointSink, type RunSink } from './points.js';

export interface SeriesEntry {
  /** Position in the canonical order (type, then tag string): the last tie-breaker between equal points. */
  readonly rank: number;
  readonly type: GroupType;
  readonly tags: Tags;
  /** KairosDB's tag string of `tags`. */
  readonly tagString: string;
  /** Partitions in row-time order. */
  readonly partitions: readonly Partition[];
  /** Set once a scan of the series yielded a point: only such series lend their tags to a group, as in KairosDB. */
  seen: boolean;
}

export interface RowGroup {
  readonly type: GroupType;
  /** The tag group-by's values of this group ('' where a series lacks the tag, as in KairosDB), in query order. */
  readonly tagGroup: Readonly<Record<string, string>> | undefined;
  readonly series: readonly SeriesEntry[];
}

export interface PipelineSpec {
  readonly metric: string;
  readonly order: Order;
  /** Points per group before the aggregators; 0 for no limit. */
  readonly limit: number;
  readonly excludeTags: boolean;
  readonly aggregators: readonly CompiledAggregator[];
  readonly groupBys: GroupBys;
}

/**
 * Sits between a group's first stage (a range aggregator fed series after series) and the rest of its pipeline:
 * the results cache's tap (engine/bucket-cache.ts), which adds the ranges it kept to the ones just read.
 */
export interface BucketTap extends PointSink, BucketObserver {}

interface Group {
  readonly ids: readonly number[];
  readonly head: RunSink;
  readonly output: OutputSink;
  /** Points let through so far, for the limit. */
  taken: number;
  /** The group's first point in stream order, which orders groups that were filled series after series. */
  firstTs: number;
  firstTie: number;
  firstRank: number;
}

export class GroupRouter {
  /**
   * True when series can be fed one after another: the first aggregator that applies is a range aggregator whose
   * ranges do not care about arrival order, and no limit needs the merged order.
   */
  readonly seriesMajor: boolean;
  private readonly applicable: CompiledAggregator[];
  private readonly groups = new Map<number | string, Group>();
  private readonly ids: number[] = [];

  constructor(
    private readonly rowGroup: RowGroup,
    private readonly spec: PipelineSpec,
    private readonly tracker: BudgetTracker,
    private readonly saves: WriteBatch[],
    /** Puts a tap after the first stage (series-major groups without point group-bys only: one group). */
    private readonly tap?: (rest: PointSink) => BucketTap,
  ) {
    this.applicable = applicableAggregators(spec.aggregators, rowGroup.type);
    this.seriesMajor = isSeriesMajor(spec, rowGroup.type);
  }

  /**
   * Makes the row group's one group exist and counts `points` into its sample size: points the results cache
   * stands for. A group exists when points were read for it, cached ones too.
   */
  addCachedPoints(points: number): void {
    const group = this.groups.get(0) ?? this.newGroup(0, []);
    group.taken += points;
  }

  /** Feeds points [from, to) of a slice. Returns false once nothing more can reach any group (the limit is met). */
  run(slice: Slice, from: number, to: number, rank: number): boolean {
    const groupers = this.spec.groupBys.points;
    if (groupers.length === 0) {
      const group = this.groups.get(0) ?? this.newGroup(0, []);
      this.feed(group, slice, from, to, rank);
      return this.spec.limit === 0 || group.taken < this.spec.limit;
    }
    let start = from;
    let key = this.keyAt(slice, from);
    // Groups are made when their first point is met, so the map keeps KairosDB's first-seen order.
    let group = this.groupOf(key);
    for (let i = from + 1; i < to; i++) {
      const next = this.keyAt(slice, i);
      if (next !== key) {
        this.feed(group, slice, start, i, rank);
        start = i;
        key = next;
        group = this.groupOf(key);
      }
    }
    this.feed(group, slice, start, to, rank);
    return true;
  }

  /** Ends every pipeline and returns the groups in KairosDB's order. */
  finish(): GroupOutput[] {
    let groups = [...this.groups.values()];
    if (this.seriesMajor) {
      const order = this.spec.order;
      groups = groups.sort((a, b) =>
        compareInStream(order, a.firstTs, a.firstTie, a.firstRank, b.firstTs, b.firstTie, b.firstRank),
      );
    }
    const tags = this.spec.excludeTags ? dict<string[]>() : this.tagUnion();
    return groups.map((group) => {
      group.head.end();
      return {
        name: this.spec.metric,
        groupBy: this.results(group.ids),
        tags,
        sampleSize: group.taken,
        points: group.output.points,
      };
    });
  }

  /** The group of a series that had no points: GraphQL's per-series view still lists it. */
  emptyGroup(): GroupOutput {
    return {
      name: this.spec.metric,
      groupBy: this.results([]),
      tags: this.spec.excludeTags ? dict<string[]>() : this.tagUnion(true),
      sampleSize: 0,
      points: new PointList(),
    };
  }

  private feed(group: Group, slice: Slice, from: number, to: number, rank: number): void {
    const limit = this.spec.limit;
    if (limit !== 0) {
      const room = limit - group.taken;
      if (room <= 0) return;
      if (to - from > room) to = from + room;
    }
    group.taken += to - from;
    if (this.seriesMajor) this.noteFirst(group, slice, from, to, rank);
    group.head.run(slice, from, to, rank);
  }

  /** Keeps the group's earliest point in stream order (series arrive one by one, each in ascending time). */
  private noteFirst(group: Group, slice: Slice, from: number, to: number, rank: number): void {
    const i = this.spec.order === 'asc' ? from : to - 1;
    const ts = slice.timestamps[i]!;
    const tie = tieAt(slice, i);
    if (
      Number.isNaN(group.firstTs) ||
      compareInStream(this.spec.order, ts, tie, rank, group.firstTs, group.firstTie, group.firstRank) < 0
    ) {
      group.firstTs = ts;
      group.firstTie = tie;
      group.firstRank = rank;
    }
  }

  /** The group ids of point i; a number for one group-by, a string for several. Leaves them in this.ids for groupOf. */
  private keyAt(slice: Slice, i: number): number | string {
    const ts = slice.timestamps[i]!;
    let num = 0;
    let extra: Extra;
    if (slice.kind === 'string') extra = slice.values[i]!;
    else {
      num = slice.values[i]!;
      if (slice.kind === 'complex') extra = slice.imaginary[i]!;
      else if (slice.exact !== undefined) extra = bigExtra(slice.exact[i]!);
    }
    const groupers = this.spec.groupBys.points;
    for (let g = 0; g < groupers.length; g++) this.ids[g] = groupers[g]!.id(ts, slice.kind, num, extra);
    return groupers.length === 1 ? this.ids[0]! : this.ids.join(',');
  }

  private groupOf(key: number | string): Group {
    return this.groups.get(key) ?? this.newGroup(key, [...this.ids]);
  }

  private newGroup(key: number | string, ids: readonly number[]): Group {
    const output = new OutputSink(this.tracker);
    let head: RunSink = output;
    const tapped = this.tap !== undefined && this.seriesMajor;
    // Only points of several series, fed one after another, can come back to a range the first stage has passed (or
    // a desc query's, which series-major feeds ascending): one series read ascending is a stream in time order, whose
    // ranges close as it goes, without the table of open ranges that would cost a dashboard's CPU (bench/RESULTS.md).
    const reopens = this.seriesMajor && (this.rowGroup.series.length > 1 || this.spec.order === 'desc');
    for (let i = this.applicable.length - 1; i >= 0; i--) {
      const aggregator = this.applicable[i]!;
      const env = this.env(aggregator.fields, reopens && i === 0);
      if (i === 0 && tapped) {
        const tap = this.tap!(head);
        head = aggregator.stage.create({ ...env, buckets: tap }, tap);
      } else {
        head = aggregator.stage.create(env, head);
      }
    }
    const group: Group = { ids, head, output, taken: 0, firstTs: Number.NaN, firstTie: 0, firstRank: 0 };
    this.groups.set(key, group);
    return group;
  }

  private env(fields: FieldNames, seriesMajor: boolean): StageEnv {
    return {
      order: this.spec.order,
      seriesMajor,
      fields,
      metric: this.spec.metric,
      tags: () => this.tagUnion(),
      generate: () => this.tracker.generate(),
      save: (batch) => this.saves.push(batch),
    };
  }

  private results(ids: readonly number[]): GroupByResult[] {
    const results: GroupByResult[] = ids.map((id, g) => this.spec.groupBys.points[g]!.result(id));
    const tagNames = this.spec.groupBys.tags;
    if (tagNames !== undefined) results.push({ name: 'tag', tags: tagNames, group: this.rowGroup.tagGroup! });
    results.push({ name: 'type', type: this.rowGroup.type });
    return results;
  }

  /** Tag values of the row group's series that yielded points (or of every series, for an empty series group). */
  private tagUnion(all = false): Record<string, string[]> {
    const union = new Map<string, Set<string>>();
    for (const series of this.rowGroup.series) {
      if (!all && !series.seen) continue;
      for (const [name, value] of Object.entries(series.tags)) {
        let values = union.get(name);
        if (values === undefined) union.set(name, (values = new Set()));
        values.add(value);
      }
    }
    const out = dict<string[]>();
    for (const name of [...union.keys()].sort()) out[name] = [...union.get(name)!].sort();
    return out;
  }
}

/**
 * The aggregators that run on a group of the given type: KairosDB skips those whose canAggregate refuses the
 * type (number-only aggregators on text), and the type changes as aggregators produce numbers.
 */
/**
 * Whether a row group of `type` feeds its series one after another: the first aggregator that applies is a range
 * aggregator whose ranges do not care about arrival order, and no limit needs the merged order.
 */
export function isSeriesMajor(spec: PipelineSpec, type: GroupType): boolean {
  return spec.limit === 0 && applicableAggregators(spec.aggregators, type)[0]?.stage.orderFree === true;
}

export function applicableAggregators(
  aggregators: readonly CompiledAggregator[],
  type: GroupType,
): CompiledAggregator[] {
  let current = type;
  return aggregators.filter(({ definition }) => {
    if (!accepts(definition, current)) return false;
    if (definition.output === 'number') current = 'number';
    return true;
  });
}

function accepts(definition: AggregatorDefinition, type: GroupType): boolean {
  return definition.accepts === 'any' || type === 'number';
}
