/**
 * One query, two answers: a real Prometheus's (its HTTP API, as the compliance tester reads it) and the engine's (in
 * process), both brought to one shape and compared as the compliance tester does: the same series (label sets), the
 * same timestamps, values equal within a relative tolerance of 1e-5 (cmpopts.EquateApprox(1e-5, 0): |a - b| <=
 * 1e-5 * min(|a|, |b|)), NaN equal to NaN; a query that must fail must fail on both. Beyond the tester, the
 * warnings and infos of the two answers can be compared too (compareAnnotations).
 */
import type { PromqlEngine, QueryResult } from '../../src/engine/promql/promql-engine.js';
import type { Labels } from '../../src/engine/promql/labels.js';

export const RELATIVE_TOLERANCE = 1e-5;

export type Answer =
  | { readonly ok: false; readonly error: string }
  | {
      readonly ok: true;
      readonly type: 'matrix' | 'vector' | 'scalar' | 'string';
      /** Sorted by labels; a scalar or string is one series with no labels. */
      readonly series: readonly {
        readonly metric: string;
        readonly points: readonly (readonly [number, number | string])[];
      }[];
      /** Warnings, then infos, each list sorted: their text as the HTTP API answers them. */
      readonly annotations: readonly string[];
    };

export type Query =
  | {
      readonly kind: 'range';
      readonly query: string;
      readonly startMs: number;
      readonly endMs: number;
      readonly stepMs: number;
    }
  | { readonly kind: 'instant'; readonly query: string; readonly timeMs: number };

interface PromSeries {
  metric: Record<string, string>;
  values?: [number, string][];
  value?: [number, string];
}

interface PromResponse {
  status: 'success' | 'error';
  errorType?: string;
  error?: string;
  data?: { resultType: 'matrix' | 'vector' | 'scalar' | 'string'; result: PromSeries[] | [number, string] };
  warnings?: string[];
  infos?: string[];
}

const annotations = (warnings: readonly string[] = [], infos: readonly string[] = []): string[] => [
  ...[...warnings].sort(),
  ...[...infos].sort(),
];

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/** Asks Prometheus by POST form, as Grafana and the tester's client do. */
export async function askPrometheus(baseUrl: string, q: Query): Promise<Answer> {
  const form: Record<string, string> =
    q.kind === 'range'
      ? { query: q.query, start: seconds(q.startMs), end: seconds(q.endMs), step: seconds(q.stepMs) }
      : { query: q.query, time: seconds(q.timeMs) };
  const response = await fetch(`${baseUrl}/api/v1/${q.kind === 'range' ? 'query_range' : 'query'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await response.json()) as PromResponse;
  if (body.status !== 'success' || body.data === undefined)
    return { ok: false, error: `${response.status} ${body.errorType}: ${body.error}` };
  const { resultType, result } = body.data;
  const notes = annotations(body.warnings, body.infos);
  const toMs = (t: number) => Math.round(t * 1000);
  if (resultType === 'scalar' || resultType === 'string') {
    const [t, v] = result as [number, string];
    return {
      ok: true,
      type: resultType,
      series: [{ metric: '', points: [[toMs(t), resultType === 'scalar' ? float(v) : v]] }],
      annotations: notes,
    };
  }
  const series = (result as PromSeries[]).map((s) => ({
    metric: formatRecord(s.metric),
    points: (s.values ?? (s.value ? [s.value] : [])).map(([t, v]) => [toMs(t), float(v)] as const),
  }));
  return { ok: true, type: resultType, series: sortSeries(series), annotations: notes };
}

export async function askEngine(engine: PromqlEngine, q: Query): Promise<Answer> {
  let result: QueryResult;
  try {
    result =
      q.kind === 'range'
        ? await engine.rangeQuery(q.query, q.startMs, q.endMs, q.stepMs)
        : await engine.instantQuery(q.query, q.timeMs);
  } catch (err) {
    return {
      ok: false,
      error: err instanceof Error ? `${(err as { type?: string }).type ?? err.name}: ${err.message}` : String(err),
    };
  }
  const v = result.value;
  const notes = annotations(result.warnings, result.infos);
  switch (v.type) {
    case 'scalar':
    case 'string':
      return {
        ok: true,
        type: v.type,
        series: [{ metric: '', points: [[result.timeMs, v.value]] }],
        annotations: notes,
      };
    case 'vector':
      return {
        ok: true,
        type: 'vector',
        series: sortSeries(
          v.samples.map((s) => ({ metric: formatLabels(s.labels), points: [[result.timeMs, s.value]] })),
        ),
        annotations: notes,
      };
    case 'matrix':
      return {
        ok: true,
        type: 'matrix',
        series: sortSeries(
          v.series.map((s) => ({
            metric: formatLabels(s.labels),
            points: [...s.timestampsMs].map((t, i) => [t, s.values[i]!] as const),
          })),
        ),
        annotations: notes,
      };
  }
}

/** Undefined when the answers agree (values within `tolerance` relative); else what differs first, in a line. */
export function compareAnswers(
  ref: Answer,
  test: Answer,
  shouldFail: boolean,
  tolerance = RELATIVE_TOLERANCE,
): string | undefined {
  if (!ref.ok || !test.ok) {
    if (!ref.ok && !test.ok) return shouldFail ? undefined : `both failed; Prometheus: ${ref.error}`;
    if (!ref.ok) return `Prometheus failed (${ref.error}), the engine answered`;
    return `the engine failed (${(test as { error: string }).error}), Prometheus answered`;
  }
  if (shouldFail) return 'both answered a query that must fail';
  if (ref.type !== test.type) return `result type ${test.type}, Prometheus's ${ref.type}`;
  const refKeys = ref.series.map((s) => s.metric);
  const testKeys = new Set(test.series.map((s) => s.metric));
  const missing = refKeys.filter((k) => !testKeys.has(k));
  const extra = [...testKeys].filter((k) => !refKeys.includes(k));
  if (missing.length > 0 || extra.length > 0)
    return `series: ${missing.length} missing (${missing.slice(0, 2).join(' ')}), ${extra.length} extra (${extra.slice(0, 2).join(' ')})`;
  for (let i = 0; i < ref.series.length; i++) {
    const r = ref.series[i]!;
    const t = test.series[i]!;
    const n = Math.max(r.points.length, t.points.length);
    for (let k = 0; k < n; k++) {
      const [rt, rv] = r.points[k] ?? [undefined, undefined];
      const [tt, tv] = t.points[k] ?? [undefined, undefined];
      if (rt !== tt)
        return `${r.metric}: point ${k} at ${tt ?? 'none'}, Prometheus's at ${rt ?? 'none'} (${r.points.length} vs ${t.points.length} points)`;
      if (!equal(rv!, tv!, tolerance)) return `${r.metric} at ${rt}: ${tv}, Prometheus ${rv}`;
    }
  }
  return undefined;
}

/** Undefined when both answered with the same warnings and infos (or either failed); else the first that differs. */
export function compareAnnotations(ref: Answer, test: Answer): string | undefined {
  if (!ref.ok || !test.ok) return undefined;
  const missing = ref.annotations.filter((a) => !test.annotations.includes(a));
  const extra = test.annotations.filter((a) => !ref.annotations.includes(a));
  if (missing.length === 0 && extra.length === 0) return undefined;
  return `Prometheus's ${JSON.stringify(missing[0] ?? null)}, the engine's ${JSON.stringify(extra[0] ?? null)}`;
}

function equal(a: number | string, b: number | string, tolerance: number): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= tolerance * Math.min(Math.abs(a), Math.abs(b));
}

function float(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  return Number(text);
}

function sortSeries<T extends { metric: string }>(series: T[]): T[] {
  return series.sort((a, b) => (a.metric < b.metric ? -1 : a.metric > b.metric ? 1 : 0));
}

export function formatRecord(record: Readonly<Record<string, string>>): string {
  return `{${Object.keys(record)
    .sort()
    .map((k) => `${k}=${JSON.stringify(record[k])}`)
    .join(', ')}}`;
}

function formatLabels(labels: Labels): string {
  return formatRecord(Object.fromEntries(labels.map((l) => [l.name, l.value])));
}
