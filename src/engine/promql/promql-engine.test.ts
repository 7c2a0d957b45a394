/**
 * The engine end to end over in-memory series: lookback and staleness, rate's extrapolation, range answers,
 * delayed name removal, errors by type, annotations, the reads it asks the series access for, and cancellation.
 */
import { describe, expect, it } from 'vitest';
import { InMemorySeries } from './in-memory-series.js';
import { labelsFromRecord } from './labels.js';
import type { Matcher } from './matcher.js';
import { PromqlEngine, type QueryResult, type QueryValue } from './promql-engine.js';
import type { SelectedSeries, SelectHints, SeriesAccess } from './series-access.js';
import { STALE_NAN } from './values.js';

const MIN = 60_000;

function storage(): InMemorySeries {
  const s = new InMemorySeries();
  // A counter rising by 10 a minute, a gauge, and a series that goes stale at 2m.
  s.add(
    labelsFromRecord({ __name__: 'requests_total', job: 'api' }),
    [0, 1, 2, 3, 4, 5, 6].map((m) => m * MIN),
    [0, 10, 20, 30, 40, 50, 60],
  );
  s.add(labelsFromRecord({ __name__: 'temperature', job: 'api' }), [0, MIN], [20, 21]);
  s.add(labelsFromRecord({ __name__: 'up', job: 'api' }), [0, MIN, 2 * MIN], [1, 1, STALE_NAN]);
  return s;
}

function samples(result: QueryResult): [string, number][] {
  if (result.value.type !== 'vector') throw new Error(`not a vector: ${result.value.type}`);
  return result.value.samples.map((s) => [s.labels.map((l) => `${l.name}=${l.value}`).join(','), s.value]);
}

describe('PromqlEngine', () => {
  it('looks back at most the lookback, left-open, and stops at a staleness marker', async () => {
    const engine = new PromqlEngine(storage());
    expect(samples(await engine.instantQuery('temperature', 5 * MIN + 59_999))).toEqual([
      ['__name__=temperature,job=api', 21],
    ]);
    expect(samples(await engine.instantQuery('temperature', 6 * MIN))).toEqual([]);
    expect(samples(await engine.instantQuery('up', 90_000))).toEqual([['__name__=up,job=api', 1]]);
    expect(samples(await engine.instantQuery('up', 150_000))).toEqual([]);
    const short = new PromqlEngine(storage(), { lookbackMs: 30_000 });
    expect(samples(await short.instantQuery('temperature', 89_999))).toEqual([['__name__=temperature,job=api', 21]]);
    expect(samples(await short.instantQuery('temperature', 90_000))).toEqual([]);
  });

  it("extrapolates rate to the window's edges, as Prometheus does", async () => {
    const engine = new PromqlEngine(storage());
    // Points 10..50 at 1m..5m: 40 over 240s, extrapolated 60s back (where the counter would be 0), none forward.
    expect(samples(await engine.instantQuery('rate(requests_total[5m])', 5 * MIN))).toEqual([['job=api', 50 / 300]]);
    expect(samples(await engine.instantQuery('increase(requests_total[5m])', 5 * MIN))).toEqual([['job=api', 50]]);
    expect(samples(await engine.instantQuery('irate(requests_total[5m])', 5 * MIN))).toEqual([['job=api', 10 / 60]]);
  });

  it('answers range queries as a matrix sorted by labels (`__name__` sorts first), with the steps that have values', async () => {
    const engine = new PromqlEngine(storage());
    const result = await engine.rangeQuery('up or temperature * 2', 0, 3 * MIN, MIN);
    if (result.value.type !== 'matrix') throw new Error('not a matrix');
    expect(
      result.value.series.map((s) => [s.labels.map((l) => l.value).join(','), [...s.timestampsMs], [...s.values]]),
    ).toEqual([
      ['up,api', [0, MIN], [1, 1]],
      ['api', [2 * MIN, 3 * MIN], [42, 42]],
    ]);
    const scalar = await engine.rangeQuery('time() * 2', 0, 2 * MIN, MIN);
    expect(scalar.value).toEqual({
      type: 'matrix',
      series: [
        { labels: [], timestampsMs: Float64Array.from([0, MIN, 2 * MIN]), values: Float64Array.from([0, 120, 240]) },
      ],
    });
  });

  it('removes __name__ at the end and refuses answers that then collide', async () => {
    const s = storage();
    s.add(labelsFromRecord({ __name__: 'errors_total', job: 'api' }), [0, MIN], [1, 2]);
    const engine = new PromqlEngine(s);
    expect(
      samples(await engine.instantQuery('label_replace(rate(requests_total[5m]), "__name__", "r", "", "")', 5 * MIN)),
    ).toEqual([['__name__=r,job=api', 50 / 300]]);
    await expect(engine.instantQuery('rate({__name__=~".+_total"}[5m])', 2 * MIN)).rejects.toMatchObject({
      type: 'execution',
      message: 'vector cannot contain metrics with the same labelset',
    });
  });

  it('expands label_replace\'s template as Go\'s regexp does ($1x names a group "1x")', async () => {
    const result = await new PromqlEngine(storage()).instantQuery(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: `${1}` is Go's template syntax, the subject of the test.
      'label_replace(up, "dst", "$1x-${1}x-$$-$name", "job", "(a)(?P<name>p)i")',
      MIN,
    );
    expect(samples(result)).toEqual([['__name__=up,dst=-ax-$-p,job=api', 1]]);
  });

  it('types its errors as Prometheus’s API does', async () => {
    const engine = new PromqlEngine(storage());
    await expect(engine.instantQuery('rate(up)', 0)).rejects.toMatchObject({
      type: 'bad_data',
      message: '1:6: parse error: expected type range vector in call to function "rate", got instant vector',
    });
    await expect(engine.rangeQuery('up[5m]', 0, MIN, MIN)).rejects.toMatchObject({
      type: 'bad_data',
      message: 'invalid expression type "range vector" for range query, must be Scalar or instant Vector',
    });
    await expect(engine.instantQuery('{job="api"} + on(job) {job="api"}', MIN)).rejects.toMatchObject({
      type: 'execution',
    });
  });

  it('reports a rate over a name that is not a counter’s as info, with its position', async () => {
    const result = await new PromqlEngine(storage()).instantQuery('sum(rate(temperature[5m]))', MIN);
    expect(result.infos).toEqual([
      'PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: "temperature" (1:10)',
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('says in a warning that native histograms are not read', async () => {
    const result = await new PromqlEngine(storage()).instantQuery('sum(histogram_count(up))', MIN);
    const empty: QueryValue = { type: 'vector', samples: [] };
    expect(result.value).toEqual(empty);
    expect(result.warnings).toEqual([
      'PromQL warning: native histograms are not supported: histogram_count() reads only native histograms and answers nothing here (1:5)',
    ]);
  });

  it('asks the series access for exactly the range each selector needs', async () => {
    const asked: [string, SelectHints][] = [];
    const inner = storage();
    const spy: SeriesAccess = {
      select(matchers: readonly Matcher[], hints: SelectHints): AsyncIterable<SelectedSeries> {
        asked.push([matchers.map((m) => `${m.name}${m.op}${m.value}`).join(','), hints]);
        return inner.select(matchers, hints);
      },
    };
    await new PromqlEngine(spy).rangeQuery('rate(requests_total[5m] offset 1m) + temperature', 10 * MIN, 20 * MIN, MIN);
    expect(asked).toEqual([
      ['__name__=requests_total', { startMs: 4 * MIN + 1, endMs: 19 * MIN, rangeMs: 5 * MIN, stepMs: MIN }],
      ['__name__=temperature', { startMs: 5 * MIN + 1, endMs: 20 * MIN, rangeMs: 0, stepMs: MIN }],
    ]);
  });

  it('stops when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('client went away'));
    await expect(new PromqlEngine(storage()).instantQuery('up', 0, controller.signal)).rejects.toThrow(
      'client went away',
    );
  });

  it('refuses settings that are not positive, naming them', () => {
    expect(() => new PromqlEngine(storage(), { lookbackMs: 0 })).toThrow('lookbackMs must be a positive number: 0');
  });
});
