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
