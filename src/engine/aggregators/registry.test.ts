// The aggregator table: KairosDB's core set of wire names, snake_case parameters, and one compile path.
import { describe, expect, it } from 'vitest';
import { embeddedKeyLimits } from '../../store/embedded/keys.js';
import { resolveZone } from '../../model/time-units.js';
import { AGGREGATORS, compileAggregators } from './registry.js';

const CONTEXT = {
  metric: 'm',
  startMs: 0,
  endMs: 1000,
  nowMs: 1000,
  zone: resolveZone('UTC')!,
  tagGroupBy: [],
  limits: embeddedKeyLimits(1978),
};

/** Parameters an aggregator cannot do without. */
const REQUIRED: Record<string, Record<string, unknown>> = {
  div: { divisor: 2 },
  filter: { filter_op: 'lt' },
  percentile: { percentile: 0.5 },
  save_as: { metric_name: 'copy' },
  scale: { factor: 2 },
  score: { thresholds: [] },
  sma: { size: 2 },
  trim: { trim: 'both' },
};

describe('AGGREGATORS', () => {
  it('holds the aggregators KairosDB binds in CoreModule, sorted by wire name', () => {
    expect(AGGREGATORS.map((a) => a.name)).toEqual([
      'avg',
      'count',
      'dev',
      'diff',
      'div',
      'filter',
      'first',
      'gaps',
      'last',
      'least_squares',
      'max',
      'min',
      'percentile',
      'rate',
      'sampler',
      'save_as',
      'scale',
      'score',
      'sma',
      'sum',
      'trim',
    ]);
  });

  it('names every parameter as the wire does, once', () => {
    for (const a of AGGREGATORS) {
      const names = a.params.map((p) => p.name);
      expect(new Set(names).size, a.name).toBe(names.length);
      for (const name of names) expect(name, a.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
    }
  });

  it("compiles save_as without a source's limits to plan a query, checking its name's form, and never runs it", () => {
    const { limits: _, ...planning } = CONTEXT;
    const long = 'm'.repeat(70_000);
    expect(() => compileAggregators([{ name: 'save_as', params: { metric_name: long } }], CONTEXT)).toThrow(
      'must be at most',
    );
    const [planned] = compileAggregators([{ name: 'save_as', params: { metric_name: long } }], planning);
    expect(() => compileAggregators([{ name: 'save_as', params: { metric_name: '' } }], planning)).toThrow(
      'must not be empty',
    );
    expect(() => planned!.stage.create({} as never, {} as never)).toThrow(
      'save_as was compiled to be planned, without the limits of a source',
    );
  });

  it('compiles each aggregator with only what it requires, and lists the rest in its table', () => {
    const specs = AGGREGATORS.map((a) => ({ name: a.name, params: REQUIRED[a.name] ?? {} }));
    expect(
      compileAggregators(
        specs.filter((s) => s.name !== 'gaps'),
        CONTEXT,
      ),
    ).toHaveLength(AGGREGATORS.length - 1);
    for (const a of AGGREGATORS) {
      for (const p of a.params) {
        if (p.required) expect(Object.keys(REQUIRED[a.name] ?? {}), `${a.name}.${p.name}`).toContain(p.name);
      }
    }
  });
});
