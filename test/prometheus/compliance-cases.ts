/**
 * The PromQL compliance tester's query list (prometheus/compliance, `promql/promql-test-queries.yml`), read at test
 * time from the project's sibling folder shared/promql-compliance (or PROMQL_COMPLIANCE_DIR), never copied into the
 * project, and expanded over its variants as the tester's `testcases/expand.go` does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const COMPLIANCE_DIR = process.env['PROMQL_COMPLIANCE_DIR'] ?? join(ROOT, '..', 'shared', 'promql-compliance');
const FILE = join(COMPLIANCE_DIR, 'promql-test-queries.yml');

export interface ComplianceCase {
  readonly query: string;
  /** The query must fail on both servers. */
  readonly shouldFail: boolean;
  /** The tester runs it but compares nothing (set on subqueries in some versions of the list). */
  readonly skipComparison: boolean;
}

/** The tester's variant values (`testVariantArgs`), in its order. */
const VARIANTS: Readonly<Record<string, readonly string[]>> = {
  range: ['1s', '15s', '1m', '5m', '15m', '1h'],
  offset: ['1m', '5m', '10m'],
  simpleAggrOp: ['sum', 'avg', 'max', 'min', 'count', 'stddev', 'stdvar'],
  simpleTimeAggrOp: ['sum', 'avg', 'max', 'min', 'count', 'stddev', 'stdvar', 'absent', 'last'],
  topBottomOp: ['topk', 'bottomk'],
  quantile: ['-0.5', '0.1', '0.5', '0.75', '0.95', '0.90', '0.99', '1', '1.5'],
  arithBinOp: ['+', '-', '*', '/', '%', '^'],
  compBinOp: ['==', '!=', '<', '>', '<=', '>='],
  binOp: ['+', '-', '*', '/', '%', '^', '==', '!=', '<', '>', '<=', '>='],
  simpleMathFunc: ['abs', 'ceil', 'floor', 'exp', 'sqrt', 'ln', 'log2', 'log10', 'round'],
  extrapolatedRateFunc: ['delta', 'rate', 'increase'],
  clampFunc: ['clamp_min', 'clamp_max'],
  instantRateFunc: ['idelta', 'irate'],
  dateFunc: ['day_of_month', 'day_of_week', 'days_in_month', 'hour', 'minute', 'month', 'year'],
  smoothingFactor: ['0.1', '0.5', '0.8'],
  trendFactor: ['0.1', '0.5', '0.8'],
};

interface RawCase {
  query: string;
  variant_args?: string[];
  should_fail?: boolean;
  skip_comparison?: boolean;
}

export function complianceListPresent(): boolean {
  return existsSync(FILE);
}

export function loadComplianceCases(): ComplianceCase[] {
  const doc = parse(readFileSync(FILE, 'utf8')) as { test_cases: RawCase[] };
  return doc.test_cases.flatMap((raw) =>
    expand(raw.query, raw.variant_args ?? []).map((query) => ({
      query,
      shouldFail: raw.should_fail === true,
      skipComparison: raw.skip_comparison === true,
    })),
  );
}

/** Every combination of the variant values, the first argument varying slowest, as the tester's getVariants. */
function expand(template: string, args: readonly string[]): string[] {
  if (args.length === 0) {
    const left = /\{\{\.(\w+)\}\}/.exec(template);
    if (left) throw new Error(`variant {{.${left[1]}}} of ${template} is not in its variant_args`);
    return [template];
  }
  const [first, ...rest] = args as [string, ...string[]];
  const values = VARIANTS[first];
  if (values === undefined) throw new Error(`unknown variant arg ${first} in ${template}`);
  return values.flatMap((value) => expand(template.replaceAll(`{{.${first}}}`, value), rest));
}
