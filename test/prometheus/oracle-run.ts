/**
 * How both oracles run a list of cases: each case asked in every mode (a mode is a set of queries: the tester's
 * window, other windows, instants), the reference's and the tested server's answers compared, what differs kept by
 * `<mode> <query>` (and `annotations <query>`), a few cases at a time so both sides work in parallel.
 */
import type { ComplianceCase } from './compliance-cases.js';
import { type Answer, compareAnnotations, compareAnswers, type Query } from './oracle-compare.js';

/**
 * Functions that read native histograms only: outside the engine's scope, so a case that calls one is skipped (no
 * query of today's list does). `histogram_quantile` and `histogram_fraction` also read classic buckets and stay.
 */
export const NATIVE = /\bhistogram_(count|sum|avg|stddev|stdvar)\s*\(/;

export interface OracleRun {
  /** `<mode> <query>` (or `annotations <query>`) of the cases whose answers differ, with what differs first. */
  failing: Record<string, string>;
  /** Cases the list says must fail that the reference answers: compared as any other. */
  answeredShouldFail: string[];
  /** Cases whose range answer (the tester's window) has at least one point. */
  answered: number;
}

/** `ask` answers one query as [the reference's answer, the tested side's]. Mode `range` is the tester's own window. */
export async function runCases<M extends string>(
  cases: readonly ComplianceCase[],
  modes: readonly M[],
  queriesOf: (mode: M, query: string) => Query[],
  ask: (q: Query) => Promise<readonly [Answer, Answer]>,
): Promise<OracleRun> {
  const run: OracleRun = { failing: {}, answeredShouldFail: [], answered: 0 };
  const check = async (mode: M, c: ComplianceCase) => {
    for (const q of queriesOf(mode, c.query)) {
      const [ref, test] = await ask(q);
      if (mode === 'range') {
        if (ref.ok && ref.series.some((s) => s.points.length > 0)) run.answered++;
        // The list predates Prometheus 3: a query it expects to fail that Prometheus answers (UTF-8 label names are
        // valid now) is held to Prometheus's answer.
        if (c.shouldFail && ref.ok) run.answeredShouldFail.push(c.query);
        const notes = compareAnnotations(ref, test);
        if (notes !== undefined) run.failing[`annotations ${c.query}`] = notes;
      }
      const diff =
        c.skipComparison && ref.ok === test.ok ? undefined : compareAnswers(ref, test, c.shouldFail && !ref.ok);
      if (diff !== undefined) {
        run.failing[`${mode} ${c.query}`] = q.kind === 'instant' ? `at ${q.timeMs}: ${diff}` : diff;
        return;
      }
    }
  };
  const jobs = cases.flatMap((c) => modes.map((mode) => () => check(mode, c)));
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < jobs.length) await jobs[next++]!();
    }),
  );
  return run;
}

/** The run's agreement per mode, and each difference, in the test's output. */
export function reportRun(what: string, modes: readonly string[], cases: number, run: OracleRun): void {
  const failed = (kind: string) => Object.keys(run.failing).filter((k) => k.startsWith(`${kind} `)).length;
  const rates = [...modes, 'annotations'].map((kind) => `${kind} ${cases - failed(kind)}/${cases}`).join(', ');
  console.info(`${what}: ${rates} agree with Prometheus; ${run.answered} range answers hold points`);
  if (run.answeredShouldFail.length > 0)
    console.info(`  expected to fail by the list, answered by Prometheus: ${run.answeredShouldFail.join('; ')}`);
  for (const [key, diff] of Object.entries(run.failing)) console.info(`  ${key}\n      ${diff}`);
}
