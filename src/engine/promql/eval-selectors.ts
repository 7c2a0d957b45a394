/**
 * Selectors: instant vector selectors with the lookback window and staleness, and the windows of range selectors
 * and subqueries that range functions read, one series at a time.
 */
import type { AtModifier, MatrixSelector, SubqueryExpr, VectorSelector } from './ast.js';
import type { EvalContext } from './eval-context.js';
import type { Window } from './functions/function-types.js';
import { compareLabels } from './labels.js';
import { isStale, newStepSeries, type PointSeries, type StepSeries } from './values.js';

/** The fixed time of an `@` modifier, or undefined when the selector follows the steps. */
export function resolveAt(ev: EvalContext, at: AtModifier | undefined): number | undefined {
  if (at === undefined) return undefined;
  if (at.kind === 'time') return at.ms;
  return at.kind === 'start' ? ev.options.queryStartMs : ev.options.queryEndMs;
}

/** The time each step reads at: the step's own time, or the `@` time, less the offset. */
export function readTimes(ev: EvalContext, at: AtModifier | undefined, offsetMs: number): Float64Array {
  const fixed = resolveAt(ev, at);
  const times = new Float64Array(ev.steps);
  for (let i = 0; i < ev.steps; i++) times[i] = (fixed ?? ev.timeAt(i)) - offsetMs;
  return times;
}

/**
 * Each series' last sample within the lookback window (left-open) at every step; a staleness marker as that sample
 * means no value. With `timestamps`, the value is the sample's time in seconds (the `timestamp()` function).
 */
export async function vectorSelector(ev: EvalContext, vs: VectorSelector, timestamps: boolean): Promise<StepSeries[]> {
  const times = readTimes(ev, vs.at, vs.offsetMs);
  const lookback = ev.options.lookbackMs;
  const minT = Math.min(times[0]!, times[times.length - 1]!);
  const maxT = Math.max(times[0]!, times[times.length - 1]!);
  const out: StepSeries[] = [];
  const hints = { startMs: minT - lookback + 1, endMs: maxT, rangeMs: 0, stepMs: ev.intervalMs };
  for await (const series of ev.access.select(vs.matchers, hints, ev.options.signal)) {
    ev.checkAborted();
    const { timestampsMs: ts, values: vals } = series;
    const result = newStepSeries(series.labels, timestamps, ev.steps);
    let j = 0;
    let any = false;
    for (let i = 0; i < ev.steps; i++) {
      const t = times[i]!;
      if (i > 0 && t < times[i - 1]!) j = 0;
      while (j < ts.length && ts[j]! <= t) j++;
      const k = j - 1;
      if (k < 0 || ts[k]! <= t - lookback || isStale(vals[k]!)) continue;
      result.values[i] = timestamps ? ts[k]! / 1000 : vals[k]!;
      result.has[i] = 1;
      any = true;
    }
    if (any) out.push(result);
  }
  return out.sort((a, b) => compareLabels(a.labels, b.labels));
}

/** The series of a range selector with the points every step's window may need, stale markers removed. */
export async function* selectPointSeries(ev: EvalContext, ms: MatrixSelector): AsyncIterable<PointSeries> {
  const times = readTimes(ev, ms.selector.at, ms.selector.offsetMs);
  const minT = Math.min(times[0]!, times[times.length - 1]!);
  const maxT = Math.max(times[0]!, times[times.length - 1]!);
  const hints = { startMs: minT - ms.rangeMs + 1, endMs: maxT, rangeMs: ms.rangeMs, stepMs: ev.intervalMs };
  for await (const series of ev.access.select(ms.selector.matchers, hints, ev.options.signal)) {
    ev.checkAborted();
    yield withoutStale({
      labels: series.labels,
      dropName: false,
      timestampsMs: series.timestampsMs,
      values: series.values,
    });
  }
}

/** A subquery's inner expression evaluated over its own aligned steps, each series as points. */
export async function subqueryPointSeries(ev: EvalContext, sq: SubqueryExpr): Promise<PointSeries[]> {
  const inner = ev.subqueryEvaluator(sq);
  const value = await inner.eval(sq.expr);
  if (value.type !== 'vector') throw new Error(`subquery of ${value.type}`);
  return value.series.map((s) => {
    const ts: number[] = [];
    const vs: number[] = [];
    for (let i = 0; i < inner.steps; i++) {
      if (s.has[i] === 0) continue;
      ts.push(inner.timeAt(i));
      vs.push(s.values[i]!);
    }
    return {
      labels: s.labels,
      dropName: s.dropName,
      timestampsMs: Float64Array.from(ts),
      values: Float64Array.from(vs),
    };
  });
}

function withoutStale(s: PointSeries): PointSeries {
  let stale = 0;
  for (const v of s.values) if (isStale(v)) stale++;
  if (stale === 0) return s;
  const ts = new Float64Array(s.values.length - stale);
  const vs = new Float64Array(s.values.length - stale);
  let n = 0;
  for (let i = 0; i < s.values.length; i++) {
    if (isStale(s.values[i]!)) continue;
    ts[n] = s.timestampsMs[i]!;
    vs[n++] = s.values[i]!;
  }
  return { ...s, timestampsMs: ts, values: vs };
}

/** Range and modifiers of a range argument, whichever of the two kinds it is. */
export function rangeOf(expr: MatrixSelector | SubqueryExpr): {
  rangeMs: number;
  at: AtModifier | undefined;
  offsetMs: number;
} {
  return expr.kind === 'matrix'
    ? { rangeMs: expr.rangeMs, at: expr.selector.at, offsetMs: expr.selector.offsetMs }
    : { rangeMs: expr.rangeMs, at: expr.at, offsetMs: expr.offsetMs };
}

/** Calls `visit` with each step's window (rangeEnd - range, rangeEnd] over one series; empty windows are skipped. */
export function forEachWindow(
  series: PointSeries,
  times: Float64Array,
  rangeMs: number,
  visit: (step: number, window: Window) => void,
): void {
  const ts = series.timestampsMs;
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < times.length; i++) {
    const end = times[i]!;
    const start = end - rangeMs;
    if (i > 0 && end < times[i - 1]!) lo = hi = 0;
    while (hi < ts.length && ts[hi]! <= end) hi++;
    while (lo < hi && ts[lo]! <= start) lo++;
    if (lo === hi) continue;
    visit(i, {
      timestampsMs: ts,
      values: series.values,
      from: lo,
      to: hi,
      rangeStartMs: start,
      rangeEndMs: end,
      rangeMs,
      labels: series.labels,
    });
  }
}

/** The points of each series in the window of one step: a range vector as a query's answer. */
export async function matrixAt(
  ev: EvalContext,
  expr: MatrixSelector | SubqueryExpr,
  source: AsyncIterable<PointSeries> | Iterable<PointSeries>,
  step: number,
): Promise<PointSeries[]> {
  const { rangeMs, at, offsetMs } = rangeOf(expr);
  const times = readTimes(ev, at, offsetMs).subarray(step, step + 1);
  const out: PointSeries[] = [];
  for await (const series of source) {
    forEachWindow(series, times, rangeMs, (_, w) =>
      out.push({
        labels: series.labels,
        dropName: series.dropName,
        timestampsMs: w.timestampsMs.slice(w.from, w.to),
        values: w.values.slice(w.from, w.to),
      }),
    );
  }
  return out.sort((a, b) => compareLabels(a.labels, b.labels));
}
