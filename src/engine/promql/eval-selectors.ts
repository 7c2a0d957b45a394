/**
 * Selectors: instant vector selectors with the lookback window and staleness, and the windows of range selectors
 * and subqueries that range functions read, one series at a time and one window of it at a time.
 */
import type { AtModifier, MatrixSelector, SubqueryExpr, VectorSelector } from './ast.js';
import type { EvalContext } from './eval-context.js';
import { compareLabels } from './labels.js';
import { type ChunkedSeries, isStale, newStepSeries, type PointSeries, type StepSeries } from './values.js';
import { forEachLatest, forEachWindow, type Pace } from './window-buffer.js';

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
  const out: StepSeries[] = [];
  const hints = {
    startMs: times[0]! - lookback + 1,
    endMs: times[times.length - 1]!,
    rangeMs: 0,
    stepMs: ev.intervalMs,
  };
  const pace = paceOf(ev);
  for await (const series of ev.access.select(vs.matchers, hints, ev.options.signal)) {
    ev.meter.checkAborted();
    ev.meter.hold(ev.steps);
    const result = newStepSeries(series.labels, timestamps, ev.steps);
    let any = false;
    await forEachLatest(
      series.chunks,
      times,
      (step, t, v) => {
        if (t <= times[step]! - lookback || isStale(v)) return;
        result.values[step] = timestamps ? t / 1000 : v;
        result.has[step] = 1;
        any = true;
      },
      pace,
    );
    if (any) out.push(result);
  }
  return out.sort((a, b) => compareLabels(a.labels, b.labels));
}

/** The series of a range selector, read as the access yields them. */
export async function* selectChunkedSeries(ev: EvalContext, ms: MatrixSelector): AsyncIterable<ChunkedSeries> {
  const times = readTimes(ev, ms.selector.at, ms.selector.offsetMs);
  const hints = {
    startMs: times[0]! - ms.rangeMs + 1,
    endMs: times[times.length - 1]!,
    rangeMs: ms.rangeMs,
    stepMs: ev.intervalMs,
  };
  for await (const series of ev.access.select(ms.selector.matchers, hints, ev.options.signal)) {
    ev.meter.checkAborted();
    // What a range function makes of the series holds a value per step.
    ev.meter.hold(ev.steps);
    yield { labels: series.labels, dropName: false, chunks: series.chunks };
  }
}

/**
 * A subquery's inner expression evaluated over its own aligned steps, each series as one chunk of points. Unlike a
 * selector's, these are held whole: the inner evaluation yields all its series at once. Its selectors hold samples
 * over the inner steps (the inner evaluator's), and the points kept here are held too, while the outer function reads
 * them, as Prometheus counts a subquery's points against `--query.max-samples`.
 */
export async function subquerySeries(ev: EvalContext, sq: SubqueryExpr): Promise<ChunkedSeries[]> {
  const inner = ev.subqueryEvaluator(sq);
  const value = await inner.eval(sq.expr);
  if (value.type !== 'vector') throw new Error(`subquery of ${value.type}`);
  const out: ChunkedSeries[] = [];
  for (const s of value.series) {
    let n = 0;
    for (let i = 0; i < inner.steps; i++) n += s.has[i]!;
    ev.meter.hold(n);
    const ts = new Float64Array(n);
    const vs = new Float64Array(n);
    for (let i = 0, k = 0; i < inner.steps; i++) {
      if (s.has[i] === 0) continue;
      ts[k] = inner.timeAt(i);
      vs[k++] = s.values[i]!;
    }
    out.push({ labels: s.labels, dropName: s.dropName, chunks: [{ timestampsMs: ts, values: vs }] });
    const turn = ev.meter.pace(inner.steps);
    if (turn !== undefined) await turn;
  }
  return out;
}

/** The meter's pace for loops over one series' steps (window-buffer.ts). */
export function paceOf(ev: EvalContext): Pace {
  return (units) => ev.meter.pace(units);
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

/** The points of each series in the window of one step: a range vector as a query's answer. */
export async function matrixAt(
  ev: EvalContext,
  expr: MatrixSelector | SubqueryExpr,
  source: AsyncIterable<ChunkedSeries> | Iterable<ChunkedSeries>,
  step: number,
): Promise<PointSeries[]> {
  const { rangeMs, at, offsetMs } = rangeOf(expr);
  const times = readTimes(ev, at, offsetMs).subarray(step, step + 1);
  const out: PointSeries[] = [];
  for await (const series of source) {
    await forEachWindow(
      series.labels,
      series.chunks,
      times,
      rangeMs,
      (_, w) =>
        out.push({
          labels: series.labels,
          dropName: series.dropName,
          timestampsMs: w.timestampsMs.slice(w.from, w.to),
          values: w.values.slice(w.from, w.to),
        }),
      paceOf(ev),
    );
  }
  return out.sort((a, b) => compareLabels(a.labels, b.labels));
}
