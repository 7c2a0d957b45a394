/**
 * Real Prometheus as the oracle of Kairograph's Prometheus API: the oracle's dataset (oracle-dataset.ts) written into a
 * real gateway on the embedded store (as KairosDB series: its metric names, dots and all, its labels as tags, its
 * values as doubles) and into Prometheus by remote write, then the compliance tester's query list and the queries over
 * KairosDB names sent to both servers' HTTP APIs by POST form, as Grafana sends them
 * (`/prometheus/kairosdb/api/v1/query_range` and Prometheus's `/api/v1/query_range`), and compared with the
 * comparator of the engine's oracle (oracle-compare.ts: 1e-5 relative). Where promql-oracle.test.ts holds the engine
 * in process, this holds everything in front of it too: the store's encoding, the read path, selectors pushed into
 * the source's index reads, the API's parameters and its JSON.
 *
 * Each query runs over the tester's window (10 minutes ending 12 minutes before the data's end, 10 s steps) and, to
 * reach where series start, end and go stale, over the data's first minutes and past its end (`edges`), and as
 * instant queries (`/query`) at a time on no step and no scrape and after the data's end. The probe queries of the
 * engine's oracle run too, and GraphQL's `promql` field is held to the same gateway's `/query_range` over the list. Every difference that remains is listed in oracle-known-http.ts with its reason: the test
 * fails when a listed case passes or an unlisted one fails. In the comparator's messages, "the engine" is Kairograph.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isStale } from '../../src/engine/promql/values.js';
import { KairosdbSource } from '../../src/sources/kairosdb/kairosdb-source.js';
import { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';
import { remoteWrite, type WriteSeries } from '../support/remote-write.js';
import { removeTempDirs, tempDir } from '../support/temp-dir.js';
import { COMPLIANCE_DIR, complianceListPresent, loadComplianceCases } from './compliance-cases.js';
import { type Answer, askPrometheus, compareAnswers, formatRecord, type Query } from './oracle-compare.js';
import { NATIVE, reportRun, runCases } from './oracle-run.js';
import { ANCHOR_MS, MARKER, oracleDataset, SPAN_MS } from './oracle-dataset.js';
import { EXTRA_QUERIES, PROBE_QUERIES } from './oracle-known.js';
import { KNOWN_HTTP, KNOWN_HTTP_EXTRA, KNOWN_HTTP_PROBE } from './oracle-known-http.js';

const MIN = 60_000;
const TESTER_END = ANCHOR_MS - 12 * MIN;
const DATA_START = ANCHOR_MS - SPAN_MS;

type Mode = 'range' | 'edges' | 'instant';
const MODES: readonly Mode[] = ['range', 'edges', 'instant'];

function queries(mode: Mode, query: string): Query[] {
  const range = (startMs: number, endMs: number, stepMs: number): Query => ({
    kind: 'range',
    query,
    startMs,
    endMs,
    stepMs,
  });
  const instant = (timeMs: number): Query => ({ kind: 'instant', query, timeMs });
  switch (mode) {
    case 'range':
      return [range(TESTER_END - 10 * MIN, TESTER_END, 10_000)];
    case 'edges':
      return [
        range(DATA_START - 5 * MIN, DATA_START + 10 * MIN, 15_000),
        range(ANCHOR_MS - 10 * MIN, ANCHOR_MS + 10 * MIN, 30_000),
      ];
    case 'instant':
      return [instant(TESTER_END - 277_500), instant(ANCHOR_MS + 3 * MIN)];
  }
}

/**
 * A series as KairosDB holds it: the name and tags of its labels, its values as doubles. KairosDB has no staleness
 * marker (it writes every NaN as Java's one NaN), so a series that stops simply has no more points, as in a store
 * written by anything but a Prometheus scrape: the markers are left out.
 */
function asKairosSeries(s: WriteSeries) {
  const { __name__: metric, ...tags } = s.labels;
  const kept = s.values.flatMap((v, i) => (isStale(v) ? [] : [i]));
  return {
    metric: metric!,
    tags,
    type: 'double' as const,
    ttlSeconds: 0,
    timestamps: kept.map((i) => s.timestampsMs[i]!),
    values: kept.map((i) => s.values[i]!),
  };
}

const present = complianceListPresent();

describe.runIf(present)("Kairograph's Prometheus API against a real Prometheus", () => {
  const { url: prometheus } = inject('prometheus');
  let store: EmbeddedStore;
  let gateway: TestGateway;
  let kairograph: string;

  beforeAll(async () => {
    const dataset = await oracleDataset();
    store = await EmbeddedStore.open({ path: tempDir() });
    await new KairosdbSource('writer', store).write({ series: dataset.map(asKairosSeries) });
    gateway = await startGateway(store);
    kairograph = `${gateway.url}/prometheus/kairosdb`;
    // The run's one Prometheus may hold the dataset already (the engine's oracle writes the same one).
    const marker = `${MARKER.__name__}{version="${MARKER.version}"}`;
    const held = await askPrometheus(prometheus, { kind: 'instant', query: marker, timeMs: ANCHOR_MS });
    if (!(held.ok && held.series.length === 1)) await remoteWrite(prometheus, dataset);
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await store?.close();
    removeTempDirs();
  });

  it("answers the compliance tester's query list as Prometheus does, but for the cases listed in KNOWN_HTTP", async () => {
    const cases = loadComplianceCases().filter((c) => !NATIVE.test(c.query));
    const run = await runCases(cases, MODES, queries, (q) =>
      Promise.all([askPrometheus(prometheus, q), askPrometheus(kairograph, q)]),
    );
    reportRun('compliance list over HTTP', MODES, cases.length, run);
    expect(run.answered).toBeGreaterThan(0.8 * cases.length);
    expect(Object.keys(run.failing).sort()).toEqual(Object.keys(KNOWN_HTTP).sort());
  });

  it('answers queries over KairosDB names (quoted, with dots) as Prometheus does', async () => {
    const cases = EXTRA_QUERIES.map((query) => ({ query, shouldFail: false, skipComparison: false }));
    const run = await runCases(cases, MODES, queries, (q) =>
      Promise.all([askPrometheus(prometheus, q), askPrometheus(kairograph, q)]),
    );
    reportRun('KairosDB names over HTTP', MODES, cases.length, run);
    expect(run.answered).toBe(cases.length);
    expect(Object.keys(run.failing).sort()).toEqual(Object.keys(KNOWN_HTTP_EXTRA).sort());
  });

  it("answers GraphQL's promql as its own /query_range, over the whole list (non-finite values are null there)", async () => {
    const cases = loadComplianceCases().filter((c) => !NATIVE.test(c.query));
    const differ: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < cases.length) {
          const c = cases[next++]!;
          const [q] = queries('range', c.query) as [Extract<Query, { kind: 'range' }>];
          const [http, graphql] = await Promise.all([askPrometheus(kairograph, q), askGraphql(gateway, q)]);
          const diff = compareAnswers(finiteOrNaN(http), graphql, !http.ok);
          if (diff !== undefined) differ.push(`${c.query}: ${diff}`);
        }
      }),
    );
    console.info(`GraphQL's promql: ${cases.length - differ.length}/${cases.length} answer as /query_range does`);
    expect(differ).toEqual([]);
  });

  it('answers harder queries over the demo service as Prometheus does, but for the cases listed in KNOWN_HTTP_PROBE', async () => {
    const cases = PROBE_QUERIES.map((query) => ({ query, shouldFail: false, skipComparison: false }));
    const run = await runCases(cases, MODES, queries, (q) =>
      Promise.all([askPrometheus(prometheus, q), askPrometheus(kairograph, q)]),
    );
    reportRun('probes over HTTP', MODES, cases.length, run);
    expect(Object.keys(run.failing).sort()).toEqual(Object.keys(KNOWN_HTTP_PROBE).sort());
  });
});

// Without its data this suite would pass having compared nothing: it fails instead, naming where it looked.
describe.skipIf(present)("Kairograph's Prometheus API against a real Prometheus", () => {
  it('finds the compliance query list', () => {
    expect.fail(
      `no query list at ${COMPLIANCE_DIR}: the compliance tester's queries are this test's data (the shared folder beside the checkout, or PROMQL_COMPLIANCE_DIR)`,
    );
  });
});

const PROMQL = `query ($expression: String!, $from: Time!, $to: Time!, $step: String!) {
  promql(expression: $expression, from: $from, to: $to, step: $step) { metric tags { name values } columns { epochMs value } }
}`;

/** GraphQL's answer to a range query, in the comparator's shape (a matrix; null values as NaN). */
async function askGraphql(gateway: TestGateway, q: Extract<Query, { kind: 'range' }>): Promise<Answer> {
  const { body } = await gateway.graphql(PROMQL, {
    expression: q.query,
    from: q.startMs,
    to: q.endMs,
    step: `${q.stepMs}ms`,
  });
  if (body.errors !== undefined) return { ok: false, error: body.errors[0]!.message };
  const series = body.data!['promql'] as {
    metric: string;
    tags: { name: string; values: string[] }[];
    columns: { epochMs: number[]; value: (number | null)[] };
  }[];
  return {
    ok: true,
    type: 'matrix',
    series: series
      .map((s) => ({
        metric: formatRecord({
          ...(s.metric !== '' ? { __name__: s.metric } : {}),
          ...Object.fromEntries(s.tags.map((t) => [t.name, t.values[0]!])),
        }),
        points: s.columns.epochMs.map((t, i) => [t, s.columns.value[i] ?? Number.NaN] as const),
      }))
      .sort((a, b) => (a.metric < b.metric ? -1 : a.metric > b.metric ? 1 : 0)),
    annotations: [],
  };
}

/** GraphQL's Float carries no NaN or infinity: an answer's non-finite values, as GraphQL's nulls read back. */
function finiteOrNaN(answer: Answer): Answer {
  if (!answer.ok) return answer;
  return {
    ...answer,
    series: answer.series.map((s) => ({
      ...s,
      points: s.points.map(([t, v]) => [t, typeof v === 'number' && !Number.isFinite(v) ? Number.NaN : v] as const),
    })),
  };
}
