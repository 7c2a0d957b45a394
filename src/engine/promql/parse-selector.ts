/**
 * Parsing of selectors (`name{label op "value", "quoted.name"}`) and of label lists (`by (a, "b.c")`), with
 * Prometheus's checks and messages.
 */
import type { VectorSelector } from './ast.js';
import { METRIC_NAME } from './labels.js';
import type { Token } from './lexer.js';
import { type MatchOp, type Matcher, matchesEmpty, newMatcher } from './matcher.js';
import { PromqlError } from './promql-error.js';
import type { TokenStream } from './token-stream.js';

/** `(a, b, "c.d")`: names may be keywords or quoted; a trailing comma is allowed. */
export function parseLabelList(p: TokenStream, context: string): string[] {
  p.expect('(', context);
  const names: string[] = [];
  while (!p.is(p.peek(), ')')) {
    const t = p.next();
    if (t.kind === 'ident' && !t.text.includes(':')) names.push(t.text);
    else if (t.kind === 'string') names.push(t.text);
    else p.unexpected(t, 'label', context);
    if (p.is(p.peek(), ',')) p.next();
    else if (!p.is(p.peek(), ')')) p.unexpected(p.peek(), '"," or ")"', context);
  }
  p.next();
  return names;
}

export function parseSelector(p: TokenStream, name: string | undefined, first: Token): VectorSelector {
  const matchers: Matcher[] = [];
  let metricName = name;
  let end = first.end;
  if (name !== undefined) matchers.push(newMatcher(METRIC_NAME, '=', name));
  if (name === undefined || p.is(p.peek(), '{')) {
    if (name !== undefined) p.next();
    for (;;) {
      const t = p.next();
      if (p.is(t, '}')) {
        end = t.end;
        break;
      }
      if (t.kind !== 'ident' && t.kind !== 'string') p.unexpected(t, 'label matching operator', 'label matching');
      const op = p.peek();
      if (t.kind === 'string' && (p.is(op, ',') || p.is(op, '}'))) {
        // A bare quoted name inside the braces is the metric name (Prometheus 3's UTF-8 names).
        if (metricName !== undefined)
          throw new PromqlError(
            'bad_data',
            `metric name must not be set twice: "${metricName}" or "${t.text}"`,
            t.start,
          );
        metricName = t.text;
        matchers.push(newMatcher(METRIC_NAME, '=', t.text));
      } else {
        if (op.kind !== 'op' || !['=', '!=', '=~', '!~'].includes(op.text))
          p.unexpected(op, 'label matching operator', 'label matching');
        p.next();
        const v = p.next();
        if (v.kind !== 'string') p.unexpected(v, 'string', 'label matching');
        matchers.push(matcher(t.text, op.text as MatchOp, v));
        if (t.text === METRIC_NAME && op.text === '=' && metricName === undefined) metricName = undefined;
      }
      const sep = p.peek();
      if (p.is(sep, ',')) p.next();
      else if (!p.is(sep, '}')) p.unexpected(sep, '"," or "}"', 'label matching');
    }
  }
  const selector: VectorSelector = {
    kind: 'vector',
    name: metricName,
    matchers,
    offsetMs: 0,
    at: undefined,
    pos: { start: first.start, end },
  };
  if (!matchers.some((m) => !matchesEmpty(m)))
    throw new PromqlError('bad_data', 'vector selector must contain at least one non-empty matcher', first.start);
  if (
    name !== undefined &&
    matchers.filter((m) => m.name === METRIC_NAME).length > 1 &&
    matchers.slice(1).some((m) => m.name === METRIC_NAME && m.op === '=')
  )
    throw new PromqlError(
      'bad_data',
      `metric name must not be set twice: "${name}" or "${matchers.slice(1).find((m) => m.name === METRIC_NAME)!.value}"`,
      first.start,
    );
  return selector;
}

function matcher(name: string, op: MatchOp, value: Token): Matcher {
  try {
    return newMatcher(name, op, value.text);
  } catch (error) {
    throw new PromqlError('bad_data', (error as Error).message, value.start);
  }
}
