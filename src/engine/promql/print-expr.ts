/**
 * Prints a syntax tree back as PromQL that this parser (and Prometheus's) reads to the same tree: selectors in the
 * quoted brace form, durations in milliseconds, every operand of an operator in parentheses.
 */
import type { AtModifier, Expr } from './ast.js';
import { goQuote } from './lexer.js';

function number(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  return String(value);
}

function modifiers(offsetMs: number, at: AtModifier | undefined): string {
  const offset = offsetMs === 0 ? '' : ` offset ${offsetMs < 0 ? '-' : ''}${Math.abs(offsetMs)}ms`;
  if (at === undefined) return offset;
  return `${offset} @ ${at.kind === 'time' ? number(at.ms / 1000) : `${at.kind}()`}`;
}

function labelList(names: readonly string[]): string {
  return `(${names.map((n) => goQuote(n)).join(', ')})`;
}

/** In parentheses unless already a parenthesised expression, so that printing what was read adds none. */
function grouped(expr: Expr): string {
  return expr.kind === 'paren' ? printExpr(expr) : `(${printExpr(expr)})`;
}

export function printExpr(expr: Expr): string {
  switch (expr.kind) {
    case 'number':
      return number(expr.value);
    case 'string':
      return goQuote(expr.value);
    case 'vector':
      return `{${expr.matchers.map((m) => `${goQuote(m.name)}${m.op}${goQuote(m.value)}`).join(', ')}}${modifiers(expr.offsetMs, expr.at)}`;
    case 'matrix': {
      const { offsetMs, at } = expr.selector;
      return `${printExpr({ ...expr.selector, offsetMs: 0, at: undefined })}[${expr.rangeMs}ms]${modifiers(offsetMs, at)}`;
    }
    case 'subquery':
      return `${grouped(expr.expr)}[${expr.rangeMs}ms:${expr.stepMs === 0 ? '' : `${expr.stepMs}ms`}]${modifiers(expr.offsetMs, expr.at)}`;
    case 'call':
      return `${expr.func}(${expr.args.map(printExpr).join(', ')})`;
    case 'aggregate': {
      const grouping =
        expr.without || expr.grouping.length > 0
          ? ` ${expr.without ? 'without' : 'by'} ${labelList(expr.grouping)}`
          : '';
      return `${expr.op}${grouping} (${expr.param === undefined ? '' : `${printExpr(expr.param)}, `}${printExpr(expr.expr)})`;
    }
    case 'binary': {
      const m = expr.matching;
      let matching = '';
      if (m !== undefined && (m.on || m.labels.length > 0))
        matching += ` ${m.on ? 'on' : 'ignoring'}${labelList(m.labels)}`;
      if (m?.card === 'many-to-one' || m?.card === 'one-to-many')
        matching += ` ${m.card === 'many-to-one' ? 'group_left' : 'group_right'}${labelList(m.include)}`;
      return `${grouped(expr.lhs)} ${expr.op}${expr.returnBool ? ' bool' : ''}${matching} ${grouped(expr.rhs)}`;
    }
    case 'unary':
      return `${expr.op}${grouped(expr.expr)}`;
    case 'paren':
      return `(${printExpr(expr.expr)})`;
  }
}
