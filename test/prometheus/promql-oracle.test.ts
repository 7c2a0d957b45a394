/**
 * Real Prometheus as the oracle of the PromQL engine: the same synthetic dataset (oracle-dataset.ts) written into a
 * Prometheus by remote write and into the engine's in-memory series, the compliance tester's query list sent to both,
 * the answers compared as the tester compares them (oracle-compare.ts: 1e-5 relative). Each query runs
 * - `range`: over the tester's window (10 minutes ending 12 minutes before the data's end, 10 s steps): the pass rate
 *   that compares with the tester's published scores;
 * - `windows`: over the data's first and last minutes, where series start, end and go stale, and over half an hour
 *   with an odd step from a start on no second;
 * - `instant`: at the tester's window end, at a time on no step and no scrape, and after the data's end;
 * - `annotations`: the warnings and infos of the `range` answers, which the tester does not compare.
 *
 * Every difference that remains is listed in KNOWN with its reason, so the pass rate can only go up: the test fails
 * when a listed case passes or an unlisted one fails. The engine is called in process, not through the HTTP front end.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { InMemorySeries } from '../../src/engine/promql/in-memory-series.js';
import { labelsFromRecord } from '../../src/engine/promql/labels.js';
import { PromqlEngine } from '../../src/engine/promql/promql-engine.js';
import { startPrometheus } from '../support/prometheus-server.js';
import { remoteWrite } from '../support/remote-write.js';
import { COMPLIANCE_DIR, complianceListPresent, loadComplianceCases } from './compliance-cases.js';
import { askEngine, askPrometheus, type Query } from './oracle-compare.js';
import { NATIVE, reportRun, runCases } from './oracle-run.js';
import { ANCHOR_MS, MARKER, oracleDataset, SPAN_MS } from './oracle-dataset.js';
import { DELAYED_NAME_REMOVAL, EXTRA_QUERIES, KNOWN, KNOWN_EXTRA, KNOWN_PROBE, PROBE_QUERIES } from './oracle-known.js';

const MIN = 60_000;
/** The tester's default window: ends 12 minutes before "now" (the data's last sample), spans 10 minutes, 10 s steps. */
const TESTER_END = ANCHOR_MS - 12 * MIN;
const DATA_START = ANCHOR_MS - SPAN_MS;

type Mode = 'range' | 'windows' | 'instant';
const MODES: readonly Mode[] = ['range', 'windows', 'instant'];

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
    case 'windows':
      return [
        range(TESTER_END - 30 * MIN + 3_700, TESTER_END, 17_000),
        range(DATA_START - 5 * MIN, DATA_START + 20 * MIN, 15_000),
        range(ANCHOR_MS - 15 * MIN, ANCHOR_MS + 10 * MIN, 30_000),
      ];
    case 'instant':
      return [instant(TESTER_END), instant(TESTER_END - 277_500), instant(ANCHOR_MS + 3 * MIN)];
  }
}

const present = complianceListPresent();

describe.runIf(present)('the PromQL engine against a real Prometheus', () => {
  const { url } = inject('prometheus');
  // Chunks of a prime size, so windows start and end inside chunks and across their edges.
  const series = new InMemorySeries(97);
  const engine = new PromqlEngine(series);

  beforeAll(async () => {
    const dataset = await oracleDataset();
    for (const s of dataset) series.add(labelsFromRecord(s.labels), s.timestampsMs, s.values);
    // A reused Prometheus may hold the dataset already; writing it again would be refused as out of bounds.
    const marker = `${MARKER.__name__}{version="${MARKER.version}"}`;
    const held = await askPrometheus(url, { kind: 'instant', query: marker, timeMs: ANCHOR_MS });
    if (!(held.ok && held.series.length === 1)) await remoteWrite(url, dataset);
  }, 120_000);

  it("answers the compliance tester's query list as Prometheus does, but for the cases listed in KNOWN", async () => {
    const all = loadComplianceCases();
    const cases = all.filter((c) => !NATIVE.test(c.query));
    const run = await runCases(cases, MODES, queries, (q) =>
      Promise.all([askPrometheus(url, q), askEngine(engine, q)]),
    );
    reportRun('compliance list', MODES, cases.length, run);
    console.info(`  ${all.length - cases.length} of ${all.length} skipped as needing native histograms`);
    // Not a comparison of empty answers: most of the list selects data in the tester's window.
    expect(run.answered).toBeGreaterThan(0.8 * cases.length);
    expect(Object.keys(run.failing).sort()).toEqual(Object.keys(KNOWN).sort());
  });

  it('answers queries over KairosDB names (quoted, with dots) as Prometheus does', async () => {
    const cases = EXTRA_QUERIES.map((query) => ({ query, shouldFail: false, skipComparison: false }));
    const run = await runCases(cases, MODES, queries, (q) =>
      Promise.all([askPrometheus(url, q), askEngine(engine, q)]),
    );
    reportRun('KairosDB names', MODES, cases.length, run);
    expect(run.answered).toBe(cases.length);
    expect(Object.keys(run.failing).sort()).toEqual(Object.keys(KNOWN_EXTRA).sort());
  });

  it('answers harder queries over the demo service as Prometheus does, but for the cases listed in KNOWN_PROBE', async () => {
    const cases = PROBE_QUERIES.map((query) => ({ query, shouldFail: false, skipComparison: false }));
    const run = await runCases(cases, MODES, queries, (q) =>
      Promise.all([askPrometheus(url, q), askEngine(engine, q)]),
    );
    reportRun('probes', MODES, cases.length, run);
    expect(Object.keys(run.failing).sort()).toEqual(Object.keys(KNOWN_PROBE).sort());
  });

  it('agrees on the cases listed for late name removal once Prometheus removes names late too', async () => {
    const listed = Object.entries({ ...KNOWN, ...KNOWN_PROBE })
      .filter(([, reason]) => reason.startsWith(DELAYED_NAME_REMOVAL))
      .map(([key]) => key);
    const names = [...new Set(listed.map((key) => key.slice(key.indexOf(' ') + 1)))];
    const server = await startPrometheus({ reuse: '', flags: ['--enable-feature=promql-delayed-name-removal'] });
    try {
      await remoteWrite(server.url, await oracleDataset());
      const run = await runCases(
        // Marked as may-fail: where Prometheus fails too (a name kept until two series collide), failing agrees.
        names.map((query) => ({ query, shouldFail: true, skipComparison: false })),
        MODES,
        queries,
        (q) => Promise.all([askPrometheus(server.url, q), askEngine(engine, q)]),
      );
      expect(listed.filter((key) => key in run.failing)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

// Without its data this suite would pass having compared nothing: it fails instead, naming where it looked.
describe.skipIf(present)('the PromQL engine against a real Prometheus', () => {
  it('finds the compliance query list', () => {
    expect.fail(
      `no query list at ${COMPLIANCE_DIR}: the compliance tester's queries are this test's data (the shared folder beside the checkout, or PROMQL_COMPLIANCE_DIR)`,
    );
  });
});
