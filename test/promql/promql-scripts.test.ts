/**
 * Prometheus's own PromQL test scripts, run as data against the engine through in-memory series. They are read from
 * the project's sibling folder shared/promqltest (or PROMQLTEST_DIR) at test time, never copied into the project.
 * Every eval that fails is listed below with its reason, so the pass rate can only go up: the test fails when a
 * listed eval passes or an unlisted one fails.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseScript } from './promql-script.js';
import { type EvalOutcome, runScript } from './run-script.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DIR = process.env['PROMQLTEST_DIR'] ?? join(ROOT, '..', 'shared', 'promqltest');

/** The files of float-only evals: all their evals but those whose selectors reach native histogram series. */
const FLOAT_FILES = [
  'aggregators',
  'at_modifier',
  'collision',
  'functions',
  'histograms',
  'literals',
  'name_label_dropping',
  'operators',
  'range_queries',
  'selectors',
  'staleness',
  'subquery',
  'trig_functions',
];

/** Float-only evals that fail, as `file:line`, by reason: none today. */
const KNOWN: Readonly<Record<string, string>> = {};

/**
 * Evals outside the float-only set (native histograms, experimental features) that pass, per file: the engine does
 * not aim at them, but a change in these counts is a change in behaviour to look at.
 */
const OTHER_PASSING: Readonly<Record<string, number>> = {
  aggregators: 1,
  duration_expression: 8,
  extended_vectors: 30,
  'fill-modifier': 1,
  functions: 57,
  histograms: 0,
  info: 1,
  limit: 14,
  native_histograms: 3,
  operators: 3,
  range_queries: 1,
  start_timestamps: 2,
  subquery: 0,
  type_and_unit: 43,
};

const present = existsSync(DIR);

describe.runIf(present)("Prometheus's PromQL test scripts", () => {
  const files = present
    ? readdirSync(DIR)
        .filter((f) => f.endsWith('.test'))
        .sort()
    : [];
  const results = new Map<string, EvalOutcome[]>();

  it('run', { timeout: 120_000 }, async () => {
    for (const file of files)
      results.set(file.replace(/\.test$/, ''), await runScript(parseScript(readFileSync(join(DIR, file), 'utf8'))));
    expect(results.size).toBe(files.length);
  });

  it('fail exactly the float-only evals listed in KNOWN', () => {
    const failing: Record<string, string> = {};
    let total = 0;
    for (const name of FLOAT_FILES)
      for (const o of results.get(name) ?? []) {
        if (o.native) continue;
        total++;
        if (o.failure !== undefined) failing[`${name}:${o.line}`] = `${o.expr} — ${o.failure}`;
      }
    const passed = total - Object.keys(failing).length;
    console.info(`float-only evals: ${passed}/${total} pass (${((100 * passed) / total).toFixed(1)}%)`);
    expect(Object.keys(failing).sort()).toEqual(Object.keys(KNOWN).sort());
  });

  it('pass as many of the other evals as recorded', () => {
    const passing: Record<string, number> = {};
    let all = 0;
    let allPassed = 0;
    for (const [name, outcomes] of results) {
      const others = outcomes.filter((o) => !FLOAT_FILES.includes(name) || o.native);
      all += outcomes.length;
      allPassed += outcomes.filter((o) => o.failure === undefined).length;
      if (others.length > 0) passing[name] = others.filter((o) => o.failure === undefined).length;
    }
    console.info(`all evals: ${allPassed}/${all} pass`);
    expect(passing).toEqual(OTHER_PASSING);
  });
});

// Without its data this suite would pass having compared nothing: it fails instead, naming where it looked.
describe.skipIf(present)("Prometheus's PromQL test scripts", () => {
  it("finds Prometheus's test scripts", () => {
    expect.fail(
      `no scripts at ${DIR}: Prometheus's test scripts are this test's data (the shared folder beside the checkout, or PROMQLTEST_DIR)`,
    );
  });
});
