/**
 * The labels of `absent` and `absent_over_time` answers: those the selector pins with `=` exactly once, as
 * Prometheus derives them.
 */
import type { Expr } from '../ast.js';
import { type Labels, METRIC_NAME, sortLabels } from '../labels.js';

export function absentLabels(arg: Expr): Labels {
  let inner = arg;
  while (inner.kind === 'paren') inner = inner.expr;
  const selector = inner.kind === 'vector' ? inner : inner.kind === 'matrix' ? inner.selector : undefined;
  if (selector === undefined) return [];
  const seen = new Map<string, string | undefined>();
  for (const m of selector.matchers) {
    if (m.name === METRIC_NAME) continue;
    if (m.op === '=' && !seen.has(m.name)) seen.set(m.name, m.value);
    else seen.set(m.name, undefined);
  }
  return sortLabels(
    [...seen].filter((e): e is [string, string] => e[1] !== undefined).map(([name, value]) => ({ name, value })),
  );
}
