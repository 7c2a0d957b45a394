/**
 * Runs a parsed PromQL test script against the engine over in-memory series, as Prometheus's promqltest does:
 * each eval's answer, error and annotations are checked; instant evals are also re-run as range queries around
 * their time and must agree at the middle step, and again with every selector pinned by `@` at other times.
 * Returns one outcome per eval.
 */
import { InMemorySeries } from '../../src/engine/promql/in-memory-series.js';
import type { Expr, VectorSelector } from '../../src/engine/promql/ast.js';
import {
  dropLabels,
  formatLabels,
  type Labels,
  labelsKey,
  labelValue,
  METRIC_NAME,
  setLabel,
} from '../../src/engine/promql/labels.js';
import { matches } from '../../src/engine/promql/matcher.js';
import { parseExpr } from '../../src/engine/promql/parser.js';
import { printExpr } from '../../src/engine/promql/print-expr.js';
import { PromqlEngine, type QueryResult } from '../../src/engine/promql/promql-engine.js';
import type { EvalCommand, Expectation, ScriptCommand } from './promql-script.js';

export interface EvalOutcome {
  readonly line: number;
  readonly expr: string;
  /** The eval reads native histograms (loaded `{{...}}` samples or a load_with_nhcb block). */
  readonly native: boolean;
  /** Undefined when the eval passed, else why not. */
  readonly failure: string | undefined;
}

const ENGINE_OPTIONS = { lookbackMs: 300_000, defaultSubqueryStepMs: 60_000, experimentalFunctions: true };

export async function runScript(commands: readonly ScriptCommand[]): Promise<EvalOutcome[]> {
  // Chunks of two samples: every window and lookback crosses chunk edges, as reads of real slices do.
  const storage = new InMemorySeries(2);
  const engine = new PromqlEngine(storage, ENGINE_OPTIONS);
  const outcomes: EvalOutcome[] = [];
  let nativeSeries: Labels[] = [];
  for (const command of commands) {
    if (command.kind === 'clear') {
      storage.clear();
      nativeSeries = [];
    } else if (command.kind === 'load') {
      for (const s of command.series) {
        const ts: number[] = [];
        const vs: number[] = [];
        if (s.values.includes('histogram')) nativeSeries.push(s.labels);
        // load_with_nhcb also stores each classic histogram as a native one, named without `_bucket`.
        const name = labelValue(s.labels, METRIC_NAME);
        if (command.nhcb && /_(bucket|count|sum)$/.test(name))
          nativeSeries.push(
            setLabel(dropLabels(s.labels, ['le']), METRIC_NAME, name.replace(/_(bucket|count|sum)$/, '')),
          );
        s.values.forEach((v, i) => {
          if (typeof v !== 'number') return;
          ts.push(i * command.intervalMs);
          vs.push(v);
        });
        storage.add(s.labels, ts, vs);
      }
    } else {
      let failure: string | undefined;
      try {
        failure = await runEval(engine, command);
      } catch (error) {
        failure = `threw: ${(error as Error).message}`;
      }
      const native =
        readsNative(command.expr, nativeSeries) || command.series.some((s) => s.values.includes('histogram'));
      outcomes.push({ line: command.line, expr: command.expr, native, failure });
    }
  }
  return outcomes;
}

/** Whether a selector of the expression selects a series that holds native histogram samples. */
function readsNative(expr: string, nativeSeries: readonly Labels[]): boolean {
  if (nativeSeries.length === 0) return false;
  let parsed: Expr;
  try {
    parsed = parseExpr(expr, { experimentalFunctions: true });
  } catch {
    return false;
  }
  const selectors: VectorSelector[] = [];
  const visit = (e: Expr): void => {
    if (e.kind === 'vector') selectors.push(e);
    else if (e.kind === 'matrix') selectors.push(e.selector);
    else if (e.kind === 'subquery' || e.kind === 'paren' || e.kind === 'unary') visit(e.expr);
    else if (e.kind === 'call') e.args.forEach(visit);
    else if (e.kind === 'aggregate') {
      visit(e.expr);
      if (e.param !== undefined) visit(e.param);
    } else if (e.kind === 'binary') [e.lhs, e.rhs].forEach(visit);
  };
  visit(parsed);
  return selectors.some((sel) =>
    nativeSeries.some((labels) => sel.matchers.every((m) => matches(m, labelValue(labels, m.name)))),
  );
}

/** Functions whose answer depends on the evaluation time even when their arguments are pinned by `@`. */
const AT_UNSAFE = new Set([
  'days_in_month',
  'day_of_month',
  'day_of_week',
  'day_of_year',
  'end',
  'hour',
  'minute',
  'month',
  'year',
  'predict_linear',
  'range',
  'start',
  'step',
  'time',
  'timestamp',
]);

/**
 * Prometheus's runner also pins every selector and subquery (not under a pinned subquery) with `@ <eval time>` and
 * evaluates that at other times, where the answer must not change. Undefined when a function makes that unsound.
 */
function atModifierVariants(query: string, timeMs: number): { query: string; timesMs: number[] } | undefined {
  let expr: Expr;
  try {
    expr = parseExpr(query, { experimentalFunctions: true });
  } catch {
    return undefined;
  }
  let unsafe = false;
  const visit = (e: Expr, pinned: boolean): void => {
    if (e.kind === 'vector') {
      if (!pinned && e.at === undefined) e.at = { kind: 'time', ms: timeMs };
    } else if (e.kind === 'matrix') visit(e.selector, pinned);
    else if (e.kind === 'subquery') {
      if (!pinned && e.at === undefined) e.at = { kind: 'time', ms: timeMs };
      visit(e.expr, pinned || e.at !== undefined);
    } else if (e.kind === 'paren' || e.kind === 'unary') visit(e.expr, pinned);
    else if (e.kind === 'call') {
      if (AT_UNSAFE.has(e.func)) unsafe = true;
      for (const arg of e.args) visit(arg, pinned);
    } else if (e.kind === 'aggregate') {
      visit(e.expr, pinned);
      if (e.param !== undefined) visit(e.param, pinned);
    } else if (e.kind === 'binary') {
      visit(e.lhs, pinned);
      visit(e.rhs, pinned);
    }
  };
  visit(expr, false);
  if (unsafe) return undefined;
  const timesMs = timeMs === 0 ? [-1000, 0, 1000] : [-10 * timeMs, 0, Math.trunc(timeMs / 5), timeMs, 10 * timeMs];
  return { query: printExpr(expr), timesMs };
}

async function runEval(engine: PromqlEngine, cmd: EvalCommand): Promise<string | undefined> {
  if (cmd.range !== undefined) return runQuery(engine, cmd, cmd.expr, undefined, true);
  const first = await runQuery(engine, cmd, cmd.expr, cmd.instantMs!, true);
  if (first !== undefined) return first;
  const variants = atModifierVariants(cmd.expr, cmd.instantMs!);
  for (const timeMs of variants?.timesMs ?? []) {
    // The printed query's positions differ from the script's, so annotations are checked on the original only.
    const failure = await runQuery(engine, cmd, variants!.query, timeMs, false);
    if (failure !== undefined) return `with @ pinned, at ${timeMs}ms: ${failure}`;
  }
  return undefined;
}

async function runQuery(
  engine: PromqlEngine,
  cmd: EvalCommand,
  query: string,
  timeMs: number | undefined,
  annotations: boolean,
): Promise<string | undefined> {
  const fail = cmd.expects.filter((e) => e.kind === 'fail');
  let result: QueryResult;
  try {
    result =
      cmd.range !== undefined
        ? await engine.rangeQuery(query, cmd.range.startMs, cmd.range.endMs, cmd.range.stepMs)
        : await engine.instantQuery(query, timeMs!);
  } catch (error) {
    const message = (error as Error).message;
    if (fail.length === 0) return `unexpected error: ${message}`;
    return fail.every((f) => matchesText(f, message))
      ? undefined
      : `error "${message}" does not match the expected one`;
  }
  if (fail.length > 0) return 'expected an error, got none';
  const annotationFailure = annotations
    ? (checkAnnotations(cmd.expects, 'warn', result.warnings) ?? checkAnnotations(cmd.expects, 'info', result.infos))
    : undefined;
  if (annotationFailure !== undefined) return annotationFailure;
  const answerFailure = compareAnswer(cmd, result);
  if (answerFailure !== undefined) return answerFailure;
  if (cmd.range !== undefined || cmd.rangeVector !== undefined || cmd.expectedString !== undefined) return undefined;
  if (cmd.expects.some((e) => e.kind === 'ordered') || /\b(range|step|start|end)\(\)/.test(query)) return undefined;
  // Prometheus's runner also evaluates an instant eval as a range query one minute either side; the middle step must
  // give the same answer.
  const t = timeMs!;
  const ranged = await engine.rangeQuery(query, t - 60_000, t + 60_000, 60_000);
  if (ranged.value.type !== 'matrix') return 'range mode did not answer a matrix';
  const samples = ranged.value.series.flatMap((s) => {
    const i = Array.from(s.timestampsMs).indexOf(t);
    return i === -1 ? [] : [{ labels: s.labels, value: s.values[i]! }];
  });
  const asInstant: QueryResult =
    result.value.type === 'scalar'
      ? { ...result, value: { type: 'scalar', value: samples[0]?.value ?? Number.NaN } }
      : { ...result, value: { type: 'vector', samples } };
  const rangeFailure = compareAnswer(cmd, asInstant);
  return rangeFailure === undefined ? undefined : `range mode: ${rangeFailure}`;
}

function matchesText(e: Expectation, text: string): boolean {
  if (e.match === undefined) return true;
  const expected = e.match.text.replace(/^"(.*)"$/, '$1');
  return e.match.type === 'msg' ? text === expected : new RegExp(expected).test(text);
}

/** Each expect line must match an annotation; with any, every annotation must match a line; no_x means none. */
function checkAnnotations(
  expects: readonly Expectation[],
  kind: 'warn' | 'info',
  got: readonly string[],
): string | undefined {
  const lines = expects.filter((e) => e.kind === kind);
  if (expects.some((e) => e.kind === `no_${kind}`) && got.length > 0) return `unexpected ${kind}: ${got.join('; ')}`;
  for (const line of lines)
    if (!got.some((g) => matchesText(line, g)))
      return `no ${kind} matches "${line.match?.text ?? '(any)'}"; got [${got.join('; ')}]`;
  if (lines.length > 0)
    for (const g of got) if (!lines.some((line) => matchesText(line, g))) return `unexpected ${kind}: ${g}`;
  return undefined;
}

/** Prometheus's almost.Equal with its test epsilon: relative 1e-6, NaN equal to NaN. */
export function almostEqual(a: number, b: number): boolean {
  if (Number.isNaN(a) && Number.isNaN(b)) return true;
  if (a === b) return true;
  const minNormal = 2.2250738585072014e-308;
  const absSum = Math.abs(a) + Math.abs(b);
  const diff = Math.abs(a - b);
  if (a === 0 || b === 0 || absSum < minNormal) return diff < 1e-6 * minNormal;
  return diff / Math.min(absSum, Number.MAX_VALUE) < 1e-6;
}

function compareAnswer(cmd: EvalCommand, result: QueryResult): string | undefined {
  const value = result.value;
  if (cmd.expectedString !== undefined)
    return value.type === 'string' && value.value === cmd.expectedString
      ? undefined
      : `expected string ${JSON.stringify(cmd.expectedString)}`;
  if (cmd.scalar !== undefined) {
    if (value.type !== 'scalar') return `expected scalar ${cmd.scalar}, got ${value.type}`;
    return almostEqual(cmd.scalar, value.value) ? undefined : `expected scalar ${cmd.scalar}, got ${value.value}`;
  }
  if (value.type === 'matrix') {
    const grid = cmd.range ?? cmd.rangeVector;
    if (grid === undefined) return 'unexpected range vector';
    return compareMatrix(cmd, value.series, grid.startMs, grid.stepMs);
  }
  if (value.type !== 'vector') return `unexpected ${value.type}`;
  if (cmd.range !== undefined) return 'expected a matrix';
  const expected = cmd.series.filter((s) => s.values.length > 0);
  if (value.samples.length !== expected.length)
    return `expected ${expected.length} samples, got ${value.samples.length}: ${value.samples.map((s) => `${formatLabels(s.labels)} ${s.value}`).join(', ')}`;
  const ordered = cmd.expects.some((e) => e.kind === 'ordered');
  for (const [i, exp] of expected.entries()) {
    const got = ordered ? value.samples[i] : value.samples.find((s) => labelsKey(s.labels) === labelsKey(exp.labels));
    if (got === undefined || labelsKey(got.labels) !== labelsKey(exp.labels))
      return `missing ${formatLabels(exp.labels)}${ordered ? ` at position ${i}` : ''}`;
    const want = exp.values[0];
    if (typeof want !== 'number' || !almostEqual(want, got.value))
      return `${formatLabels(exp.labels)}: expected ${String(want)}, got ${got.value}`;
  }
  return undefined;
}

function compareMatrix(
  cmd: EvalCommand,
  series: readonly { labels: Labels; timestampsMs: Float64Array; values: Float64Array }[],
  startMs: number,
  stepMs: number,
): string | undefined {
  const expected = cmd.series.filter((s) => s.values.some((v) => v !== 'gap'));
  if (series.length !== expected.length)
    return `expected ${expected.length} series, got ${series.length}: ${series.map((s) => formatLabels(s.labels)).join(', ')}`;
  for (const exp of expected) {
    const got = series.find((s) => labelsKey(s.labels) === labelsKey(exp.labels));
    if (got === undefined) return `missing series ${formatLabels(exp.labels)}`;
    const points: [number, number][] = [];
    exp.values.forEach((v, i) => {
      if (typeof v === 'number') points.push([startMs + i * stepMs, v]);
    });
    if (points.length !== got.values.length)
      return `${formatLabels(exp.labels)}: expected ${points.length} points, got ${got.values.length} (${Array.from(got.values).join(' ')})`;
    for (const [i, [t, v]] of points.entries()) {
      if (got.timestampsMs[i] !== t || !almostEqual(v, got.values[i]!))
        return `${formatLabels(exp.labels)}: point ${i} expected ${v}@${t}, got ${got.values[i]}@${got.timestampsMs[i]}`;
    }
  }
  return undefined;
}
