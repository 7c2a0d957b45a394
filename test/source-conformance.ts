/**
 * The Source conformance suite: what every layout must do at the seam, written once as data (CASES) and run by one
 * runner against every layout on every store it supports: KairosDB on the embedded store (unit run) and on Cassandra,
 * Heroic's table and users' tables on Cassandra (integration run). A layout declares what it can do (Declared); where
 * it cannot, a case expects the refusal it declares or the capability's absence, never a skip.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../src/model/errors.js';
import type { KeyLimits } from '../src/model/key-limits.js';
import type { SliceKind, Tags } from '../src/model/series.js';
import type { ValueType } from '../src/model/write-batch.js';
import { IndexLoaders } from '../src/sources/index-loaders.js';
import type { DeletedPart, Source } from '../src/sources/source.js';
import { rowKeyBytes, utf8Bytes } from '../src/sources/key-limits.js';
import { validateMetricName, validateWrite } from '../src/sources/write-validation.js';
import { encodeTagString } from '../src/model/tag-string.js';

/** What a layout can do, as the suite holds it to. */
export interface Declared {
  /** The slice kind a written type comes back as; a type it cannot hold is refused, with the error its limits give. */
  readonly types: Readonly<Partial<Record<ValueType, SliceKind>>>;
  /** Whether it holds points before the epoch; where not, its limits' minTimestampMs refuses them. */
  readonly negativeTimes: boolean;
  /** Metric names: those written (and not forgotten), or the fixed ones of its settings (a table's mapping). */
  readonly metricNames: 'written' | 'mapped';
  /** What deleting a whole period of one series answers: the partition is gone, or only that metric's cells are. */
  readonly wholeDelete: DeletedPart;
  /** Whether deleteMetricName forgets the name (a table's names are its mapping's: they stay). */
  readonly forgetsMetricNames: boolean;
  readonly capabilities: { readonly metadata: boolean; readonly catalogue: boolean; readonly schemaRepair: boolean };
}

export interface LayoutUnderTest {
  readonly declared: Declared;
  /** The time span of one partition (KairosDB's row width, Heroic's period, a table's bucket), in ms. */
  readonly widthMs: number;
  /** Where the cases' times start: a partition start in the layout's years. */
  readonly t0: number;
  /** The metric a case's series of `type` is written to (a table maps one column of that type to it). */
  metric(type: ValueType): string;
  /** A fresh source holding nothing the cases did not write; the suite closes it. */
  open(): Promise<Source>;
  /** The same layout configured read-only (Heroic's legacy schema, a table without `writable`); absent where none is. */
  openReadOnly?(): Promise<Source>;
}

/** A time as [period, offset]: `offset` ms after the start of the layout's `period`-th partition from t0. */
type At = readonly [number, number];

interface SeriesSpec {
  readonly type: ValueType;
  readonly host: string;
  readonly points: readonly (readonly [At, number | string])[];
}

type Check =
  /** The points of `type`'s series found in [from, to] (all of them unless `host`), read with `options`. */
  | {
      readonly read: ValueType;
      readonly from: At;
      readonly to: At;
      readonly host?: string;
      readonly options?: { readonly order?: 'asc' | 'desc'; readonly limit?: number; readonly pageSize?: number };
      readonly points: Readonly<Record<string, readonly (readonly [At, number | string])[]>>;
    }
  /** The series findSeries finds (one per host), and the periods it looked at. */
  | {
      readonly find: ValueType;
      readonly from: At;
      readonly to: At;
      readonly hosts?: readonly string[];
      readonly latestPeriods?: number;
      readonly found: readonly string[];
      readonly periods: number;
    }
  /** Metric names with a prefix, as written or as mapped. */
  | { readonly metricNames: string; readonly limit?: number; readonly written: readonly ValueType[] }
  /** Deletes one series' points in [from, to]; `whole`: the range covers its partition (the layout declares the answer). */
  | { readonly delete: ValueType; readonly host: string; readonly from: At; readonly to: At; readonly whole: boolean }
  | { readonly deleteMetricName: ValueType };

interface SourceCase {
  readonly name: string;
  /** Times count periods from the epoch instead of from the layout's t0. */
  readonly fromEpoch?: boolean;
  readonly write: readonly SeriesSpec[];
  readonly checks: readonly Check[];
}

const A = 'a';

/** What every read-only source answers a write or a delete with: its name under `source`, and why. */
const READ_ONLY = {
  code: 'BAD_USER_INPUT',
  field: 'source',
  value: 'sc',
  reason: expect.stringMatching(/^is read-only: /),
};
const B = 'b';

/** The cases, as data: every layout runs every one. */
export const CASES: readonly SourceCase[] = [
  {
    name: 'reads back the points of each type it keeps, exactly, in time order',
    write: [
      {
        type: 'double',
        host: A,
        points: [
          [[0, 1], 1.5],
          [[0, 0], -0.25],
          [[0, 2], 1e300],
        ],
      },
      {
        type: 'long',
        host: A,
        points: [
          [[0, 0], 42],
          [[0, 5], -7],
          [[0, 9], 9_007_199_254_740_991],
        ],
      },
      { type: 'string', host: A, points: [[[0, 3], 'hé\u0000llo 🌍']] },
    ],
    checks: [
      {
        read: 'double',
        from: [0, 0],
        to: [1, 0],
        points: {
          a: [
            [[0, 0], -0.25],
            [[0, 1], 1.5],
            [[0, 2], 1e300],
          ],
        },
      },
      {
        read: 'long',
        from: [0, 0],
        to: [1, 0],
        points: {
          a: [
            [[0, 0], 42],
            [[0, 5], -7],
            [[0, 9], 9_007_199_254_740_991],
          ],
        },
      },
      { read: 'string', from: [0, 0], to: [1, 0], points: { a: [[[0, 3], 'hé\u0000llo 🌍']] } },
    ],
  },
  {
    name: 'finds a series in every period it has points in, each partition within its period',
    write: [
      {
        type: 'double',
        host: A,
        points: [
          [[0, 10], 1],
          [[1, 0], 2],
          [[1, 1], 3],
          [[3, 7], 4],
        ],
      },
      { type: 'double', host: B, points: [[[1, 5], 5]] },
    ],
    checks: [
      { find: 'double', from: [0, 0], to: [4, 0], found: ['a@0', 'a@1', 'a@3', 'b@1'], periods: 3 },
      { find: 'double', from: [1, 2], to: [2, 0], found: ['a@1', 'b@1'], periods: 1 },
      { find: 'double', from: [0, 0], to: [4, 0], hosts: [B], found: ['b@1'], periods: 3 },
      { find: 'double', from: [0, 0], to: [4, 0], latestPeriods: 1, found: ['a@3'], periods: 1 },
      { find: 'double', from: [5, 0], to: [6, 0], found: [], periods: 0 },
      {
        read: 'double',
        from: [0, 0],
        to: [4, 0],
        points: {
          a: [
            [[0, 10], 1],
            [[1, 0], 2],
            [[1, 1], 3],
            [[3, 7], 4],
          ],
          b: [[[1, 5], 5]],
        },
      },
    ],
  },
  {
    name: 'reads both ends inclusive, in either order, a limit per partition, in pages of any size',
    write: [{ type: 'long', host: A, points: [0, 1, 2, 3, 4, 5].map((i) => [[0, i * 10], i] as const) }],
    checks: [
      { read: 'long', from: [0, 10], to: [0, 40], points: { a: [1, 2, 3, 4].map((i) => [[0, i * 10], i]) } },
      {
        read: 'long',
        from: [0, 0],
        to: [1, 0],
        options: { order: 'desc' },
        points: { a: [5, 4, 3, 2, 1, 0].map((i) => [[0, i * 10], i]) },
      },
      {
        read: 'long',
        from: [0, 0],
        to: [1, 0],
        options: { limit: 2 },
        points: {
          a: [
            [[0, 0], 0],
            [[0, 10], 1],
          ],
        },
      },
      {
        read: 'long',
        from: [0, 0],
        to: [1, 0],
        options: { order: 'desc', limit: 1 },
        points: { a: [[[0, 50], 5]] },
      },
      {
        read: 'long',
        from: [0, 0],
        to: [1, 0],
        options: { pageSize: 1 },
        points: { a: [0, 1, 2, 3, 4, 5].map((i) => [[0, i * 10], i]) },
      },
      { read: 'long', from: [0, 11], to: [0, 19], points: {} },
    ],
  },
  {
    name: 'keeps the last write of a series and time',
    write: [
      {
        type: 'double',
        host: A,
        points: [
          [[0, 1], 1],
          [[0, 2], 2],
        ],
      },
      { type: 'double', host: A, points: [[[0, 1], 10]] },
    ],
    checks: [
      {
        read: 'double',
        from: [0, 0],
        to: [1, 0],
        points: {
          a: [
            [[0, 1], 10],
            [[0, 2], 2],
          ],
        },
      },
    ],
  },
  {
    name: 'lists metric names by prefix, sorted, at most a limit',
    write: [
      { type: 'double', host: A, points: [[[0, 0], 1]] },
      { type: 'long', host: A, points: [[[0, 0], 1]] },
    ],
    checks: [
      { metricNames: '', written: ['double', 'long'] },
      { metricNames: '', limit: 1, written: ['double', 'long'] },
      { metricNames: 'no such prefix', written: [] },
    ],
  },
  {
    name: 'deletes part of a partition, then a whole one',
    write: [
      {
        type: 'double',
        host: A,
        points: [
          [[0, 1], 1],
          [[0, 2], 2],
          [[0, 3], 3],
          [[1, 1], 4],
        ],
      },
      { type: 'double', host: B, points: [[[0, 2], 5]] },
    ],
    checks: [
      { delete: 'double', host: A, from: [0, 2], to: [0, 2], whole: false },
      {
        read: 'double',
        from: [0, 0],
        to: [2, 0],
        points: {
          a: [
            [[0, 1], 1],
            [[0, 3], 3],
            [[1, 1], 4],
          ],
          b: [[[0, 2], 5]],
        },
      },
      { delete: 'double', host: A, from: [0, 0], to: [1, -1], whole: true },
      { read: 'double', from: [0, 0], to: [2, 0], points: { a: [[[1, 1], 4]], b: [[[0, 2], 5]] } },
    ],
  },
  {
    name: "forgets a metric's name once its data is gone, where its names are its own",
    write: [{ type: 'double', host: A, points: [[[0, 1], 1]] }],
    checks: [
      { delete: 'double', host: A, from: [0, 0], to: [1, -1], whole: true },
      { deleteMetricName: 'double' },
      { metricNames: '', written: [] },
    ],
  },
  {
    name: 'holds points before the epoch, where it may',
    fromEpoch: true,
    write: [{ type: 'double', host: A, points: [[[-1, 5], 1]] }],
    checks: [{ read: 'double', from: [-2, 0], to: [0, 0], points: { a: [[[-1, 5], 1]] } }],
  },
];

/** Runs every case against `layout` (a fresh source each), and the checks of its capabilities and limits. */
export function describeSourceConformance(name: string, layout: LayoutUnderTest): void {
  describe(`${name}: source conformance`, () => {
    const { declared, widthMs, t0 } = layout;
    let origin = t0;
    const time = ([period, offset]: At) => origin + period * widthMs + offset;
    /** Runs `test` on a fresh source, closed after it whatever it did. */
    const withSource = async (test: (source: Source) => Promise<void>) => {
      const source = await layout.open();
      try {
        await test(source);
      } finally {
        await source.close();
      }
    };

    /** The refusal a write of `spec` meets, or undefined where the layout takes it. */
    const refusal = (spec: SeriesSpec, limits: KeyLimits): string | undefined => {
      if (declared.types[spec.type] === undefined) {
        if (spec.type !== 'string' || limits.doublesOnly === undefined)
          throw new Error(`${name} declares no ${spec.type} points, but its limits do not refuse them`);
        return `must be double or long: ${limits.doublesOnly} values are doubles`;
      }
      if (!declared.negativeTimes && spec.points.some(([at]) => time(at) < 0))
        return `must be at least ${limits.minTimestampMs}: ${limits.store} partitions start there`;
      return undefined;
    };

    /** Validates and writes as every front end does: one series at a time here, so a refusal names its own. */
    const write = async (source: Source, spec: SeriesSpec) => {
      const batch = validateWrite(
        [
          {
            metric: layout.metric(spec.type),
            tags: { host: spec.host },
            type: spec.type,
            points: spec.points.map(([at, value]) => ({ timestamp: time(at), value })),
          },
        ],
        'series',
        { maxPoints: 1000, keys: source.limits },
      );
      await source.write(batch);
    };

    const plan = (source: Source, type: ValueType, from: At, to: At, hosts?: readonly string[], latest?: number) =>
      source.findSeries(
        new IndexLoaders(),
        layout.metric(type),
        { startMs: time(from), endMs: time(to) },
        (tags: Tags) => hosts === undefined || hosts.includes(tags['host'] ?? ''),
        latest === undefined ? {} : { latestPeriods: latest },
      );

    const run = async (source: Source, check: Check) => {
      if ('read' in check) {
        const type = check.read;
        const kind = declared.types[type];
        const { partitions } = await plan(source, type, check.from, check.to, check.host ? [check.host] : undefined);
        // A plan's partitions come in the source's order; read here series by series, period by period.
        const ordered = [...partitions].sort(
          (x, y) =>
            (x.tags['host']! < y.tags['host']! ? -1 : x.tags['host']! > y.tags['host']! ? 1 : 0) ||
            x.rowTime - y.rowTime,
        );
        const got: Record<string, [number, number | string, SliceKind][]> = {};
        for (const key of ordered)
          for await (const slice of source.read(key, time(check.from), time(check.to), check.options)) {
            const host = key.tags['host']!;
            expect(slice.key.tags).toEqual(key.tags);
            for (let i = 0; i < slice.timestamps.length; i++) {
              const t = slice.timestamps[i]!;
              // Every point of a partition lies in its period: the engine merges and caches by it.
              expect(t >= key.rowTime && t < key.rowTime + widthMs, `${t} in the period at ${key.rowTime}`).toBe(true);
              (got[host] ??= []).push([t, slice.values[i]!, slice.kind]);
            }
          }
        const expected = Object.fromEntries(
          Object.entries(check.points).map(([host, points]) => [
            host,
            points.map(([at, value]) => [time(at), value, kind]),
          ]),
        );
        expect(got).toEqual(expected);
      } else if ('find' in check) {
        const found = await plan(source, check.find, check.from, check.to, check.hosts, check.latestPeriods);
        expect(found.widthMs).toBe(widthMs);
        const names = found.partitions.map((p) => `${p.tags['host']}@${(p.rowTime - t0) / widthMs}`).sort();
        expect(names).toEqual(check.found);
        expect(found.periods).toBe(check.periods);
        expect(new Set(found.partitions.map((p) => p.kind))).toEqual(
          new Set(found.partitions.length === 0 ? [] : [declared.types[check.find]]),
        );
      } else if ('metricNames' in check) {
        const names = (
          declared.metricNames === 'written'
            ? check.written.map((type) => layout.metric(type))
            : (['double', 'long', 'string'] as const)
                .filter((type) => declared.types[type] !== undefined)
                .map((type) => layout.metric(type))
        )
          .filter((metric) => metric.startsWith(check.metricNames))
          .sort();
        expect(await source.metricNames(check.metricNames, check.limit)).toEqual(
          check.limit === undefined ? names : names.slice(0, check.limit),
        );
      } else if ('delete' in check) {
        const { partitions } = await plan(source, check.delete, check.from, check.to, [check.host]);
        const parts = await Promise.all(
          partitions.map((key) => source.deleteRange(key, time(check.from), time(check.to))),
        );
        expect(parts).toEqual(partitions.map(() => (check.whole ? declared.wholeDelete : 'range')));
      } else {
        await source.deleteMetricName(layout.metric(check.deleteMetricName));
      }
    };

    for (const c of CASES) {
      it(c.name, () =>
        withSource(async (source) => {
          origin = c.fromEpoch === true ? 0 : t0;
          const refused = c.write.map((spec) => refusal(spec, source.limits));
          for (const [i, spec] of c.write.entries()) {
            const why = refused[i];
            if (why === undefined) await write(source, spec);
            else await expect(write(source, spec)).rejects.toThrow(why);
          }
          for (const check of c.checks) {
            const type =
              'read' in check
                ? check.read
                : 'find' in check
                  ? check.find
                  : 'delete' in check
                    ? check.delete
                    : undefined;
            // A check of a type it cannot hold, or of a time it cannot, finds nothing: what was refused is not there.
            if (type !== undefined && c.write.some((spec, i) => spec.type === type && refused[i] !== undefined)) {
              if ('read' in check || 'find' in check)
                expect((await plan(source, type, check.from, check.to)).partitions).toEqual([]);
              continue;
            }
            if ('metricNames' in check && declared.metricNames === 'written') {
              const kept = check.written.filter((t) => c.write.every((spec, i) => spec.type !== t || !refused[i]));
              const forgotten = c.checks.some((k) => 'deleteMetricName' in k) && declared.forgetsMetricNames;
              await run(source, { ...check, written: forgotten ? [] : kept });
              continue;
            }
            await run(source, check);
          }
        }),
      );
    }

    it('refuses a metric name longer than its keys hold, with the error every layout gives', () =>
      withSource(async (source) => {
        const { limits } = source;
        const name = 'm'.repeat(limits.maxMetricBytes + 1);
        expect(() => validateMetricName(name, 'metric', limits)).toThrow(
          new InputError(
            'metric',
            name,
            `must be at most ${limits.maxMetricBytes} bytes in UTF-8, the longest metric name ${limits.store} keys hold (it is ${limits.maxMetricBytes + 1} bytes)`,
          ),
        );
        expect(validateMetricName('m'.repeat(limits.maxMetricBytes), 'metric', limits)).toHaveLength(
          limits.maxMetricBytes,
        );
      }));

    it('refuses a series whose key would be larger than its keys hold, with the error every layout gives', () =>
      withSource(async (source) => {
        const { limits } = source;
        const metric = layout.metric('double');
        const tags = { host: 'h'.repeat(limits.maxRowKeyBytes) };
        const bytes = rowKeyBytes(utf8Bytes(metric), utf8Bytes('kairos_double'), utf8Bytes(encodeTagString(tags)));
        const series = [{ metric, tags, type: 'double' as const, points: [{ timestamp: t0, value: 1 }] }];
        expect(() => validateWrite(series, 'series', { maxPoints: 1, keys: limits })).toThrow(
          new InputError(
            'series[0].tags',
            tags,
            `make a row key of ${bytes} bytes with the metric name, over the ${limits.maxRowKeyBytes} bytes ${limits.store} keys hold`,
          ),
        );
      }));

    it('refuses writes and deletes where it is configured read-only, naming the source', async () => {
      if (layout.openReadOnly === undefined) {
        await withSource(async (source) => expect(source.writable).toBe(true));
        return;
      }
      const source = await layout.openReadOnly();
      try {
        expect(source.writable).toBe(false);
        const batch = {
          series: [
            {
              metric: layout.metric('double'),
              tags: { host: A },
              type: 'double' as const,
              ttlSeconds: 0,
              timestamps: [t0],
              values: [1],
            },
          ],
        };
        await expect(source.write(batch)).rejects.toMatchObject(READ_ONLY);
        const key = {
          metric: layout.metric('double'),
          rowTime: t0,
          dataType: 'any',
          tags: { host: A },
          kind: 'double' as const,
        };
        await expect(source.deleteRange(key, t0, t0)).rejects.toMatchObject(READ_ONLY);
      } finally {
        await source.close();
      }
    });

    it('declares its capabilities, and has exactly those', () =>
      withSource(async (source) => {
        expect({
          metadata: source.capabilities.metadata !== undefined,
          catalogue: source.capabilities.catalogue !== undefined,
          schemaRepair: source.capabilities.schemaRepair !== undefined,
        }).toEqual(declared.capabilities);
        expect(source.writable).toBe(true);
        await source.ping();
      }));

    it('keeps metadata where it declares it: values, keys, deletes', () =>
      withSource(async (source) => {
        const metadata = source.capabilities.metadata;
        if (!declared.capabilities.metadata) {
          expect(metadata).toBeUndefined();
          return;
        }
        const index = metadata!.index;
        await index.set('svc', 'k1', 'b', 'two');
        await index.set('svc', 'k1', 'a', 'one');
        expect(await index.keys('svc', 'k1')).toEqual(['a', 'b']);
        expect((await index.value('svc', 'k1', 'a'))?.value).toBe('one');
        expect(await index.serviceKeys('svc')).toEqual(['k1']);
        await index.delete('svc', 'k1', 'a');
        expect(await index.keys('svc', 'k1')).toEqual(['b']);
        expect(metadata!.readOnlyServices).toEqual(['kairograph']);
      }));

    it('knows the partitions it was written where it keeps a catalogue', () =>
      withSource(async (source) => {
        origin = t0;
        const catalogue = source.capabilities.catalogue;
        if (!declared.capabilities.catalogue) {
          expect(catalogue).toBeUndefined();
          return;
        }
        const before = catalogue!.status().partitions;
        await write(source, {
          type: 'double',
          host: 'c',
          points: [
            [[0, 1], 1],
            [[2, 1], 2],
          ],
        });
        expect(catalogue!.status().partitions).toBe(before + 2);
      }));
  });
}

/** What each layout declares it can do: the one table the suite holds every layout to. */
export const DECLARED = {
  kairosdb: {
    types: { long: 'long', double: 'double', string: 'string' },
    negativeTimes: true,
    metricNames: 'written',
    wholeDelete: 'partition',
    forgetsMetricNames: true,
    capabilities: { metadata: true, catalogue: false, schemaRepair: false },
  },
  /** Heroic's table holds doubles (a long is one), from the epoch on. */
  heroic: {
    types: { long: 'double', double: 'double' },
    negativeTimes: false,
    metricNames: 'written',
    wholeDelete: 'partition',
    forgetsMetricNames: true,
    capabilities: { metadata: false, catalogue: true, schemaRepair: false },
  },
  /**
   * A user's table mapped with a metric per value column (double, bigint, text): its names are the mapping's, and a
   * whole delete of one metric's period takes that column's cells, the row staying for the others.
   */
  table: {
    types: { long: 'long', double: 'double', string: 'string' },
    negativeTimes: true,
    metricNames: 'mapped',
    wholeDelete: 'range',
    forgetsMetricNames: false,
    capabilities: { metadata: false, catalogue: true, schemaRepair: false },
  },
} as const satisfies Record<string, Declared>;
