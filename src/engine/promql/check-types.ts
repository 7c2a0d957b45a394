/**
 * The typed pass over a parsed expression: argument counts and types of calls, aggregation parameters, operand
 * types of operators and modifiers, with Prometheus's messages (all `bad_data`).
 */
import { AGGREGATIONS } from './aggregations/aggregation-table.js';
import type { Expr, ValueType } from './ast.js';
import { COMPARISON_OPS, SET_OPS } from './ast.js';
import { functionDef } from './functions/function-table.js';
import { PromqlError } from './promql-error.js';

/** Prometheus's names for value types in messages. */
function documentedType(type: ValueType): string {
  return { scalar: 'scalar', vector: 'instant vector', matrix: 'range vector', string: 'string' }[type];
}

export function typeOf(expr: Expr): ValueType {
  switch (expr.kind) {
    case 'number':
      return 'scalar';
    case 'string':
      return 'string';
    case 'vector':
    case 'aggregate':
      return 'vector';
    case 'matrix':
    case 'subquery':
      return 'matrix';
    case 'call':
      return functionDef(expr.func)?.returnType ?? 'vector';
    case 'binary':
      return typeOf(expr.lhs) === 'scalar' && typeOf(expr.rhs) === 'scalar' ? 'scalar' : 'vector';
    case 'unary':
    case 'paren':
      return typeOf(expr.expr);
  }
}

function fail(expr: Expr, message: string): never {
  throw new PromqlError('bad_data', message, expr.pos.start);
}

function expectType(expr: Expr, want: ValueType, context: string): void {
  const got = typeOf(expr);
  if (got !== want) fail(expr, `expected type ${documentedType(want)} in ${context}, got ${documentedType(got)}`);
}

export function checkTypes(expr: Expr, options: { readonly experimentalFunctions?: boolean } = {}): void {
  switch (expr.kind) {
    case 'paren':
      return checkTypes(expr.expr, options);
    case 'unary': {
      checkTypes(expr.expr, options);
      const type = typeOf(expr.expr);
      if (type !== 'scalar' && type !== 'vector')
        fail(
          expr,
          `unary expression only allowed on expressions of type scalar or instant vector, got ${JSON.stringify(documentedType(type))}`,
        );
      return;
    }
    case 'subquery': {
      checkTypes(expr.expr, options);
      const type = typeOf(expr.expr);
      if (type !== 'vector')
        fail(expr, `subquery is only allowed on instant vector, got ${documentedType(type)} instead`);
      return;
    }
    case 'aggregate': {
      const def = AGGREGATIONS.get(expr.op)!;
      if (def.experimental === true && options.experimentalFunctions !== true)
        fail(
          expr,
          `${expr.op}() is experimental and must be enabled with --enable-feature=promql-experimental-functions`,
        );
      if (expr.param !== undefined) {
        checkTypes(expr.param, options);
        expectType(expr.param, def.param === 'string' ? 'string' : 'scalar', 'aggregation parameter');
      }
      checkTypes(expr.expr, options);
      expectType(expr.expr, 'vector', 'aggregation expression');
      return;
    }
    case 'call':
      return checkCall(expr, options);
    case 'binary':
      return checkBinary(expr, options);
    default:
      return;
  }
}

function checkCall(expr: Expr & { kind: 'call' }, options: { readonly experimentalFunctions?: boolean }): void {
  const def = functionDef(expr.func)!;
  const nargs = def.argTypes.length;
  const variadic = def.variadic ?? 0;
  const got = expr.args.length;
  if (variadic === 0) {
    if (nargs !== got) fail(expr, `expected ${nargs} argument(s) in call to ${JSON.stringify(def.name)}, got ${got}`);
  } else {
    const least = nargs - 1;
    if (least > got)
      fail(expr, `expected at least ${least} argument(s) in call to ${JSON.stringify(def.name)}, got ${got}`);
    if (variadic > 0 && least + variadic < got)
      fail(expr, `expected at most ${least + variadic} argument(s) in call to ${JSON.stringify(def.name)}, got ${got}`);
  }
  for (const [i, arg] of expr.args.entries()) {
    checkTypes(arg, options);
    if (i >= nargs && variadic === 0) break;
    expectType(arg, def.argTypes[Math.min(i, nargs - 1)]!, `call to function ${JSON.stringify(def.name)}`);
  }
}

function checkBinary(expr: Expr & { kind: 'binary' }, options: { readonly experimentalFunctions?: boolean }): void {
  checkTypes(expr.lhs, options);
  checkTypes(expr.rhs, options);
  const lt = typeOf(expr.lhs);
  const rt = typeOf(expr.rhs);
  const comparison = COMPARISON_OPS.has(expr.op);
  const setOp = SET_OPS.has(expr.op);
  if (expr.returnBool && !comparison) fail(expr, 'bool modifier can only be used on comparison operators');
  if (comparison && !expr.returnBool && lt === 'scalar' && rt === 'scalar')
    fail(expr, 'comparisons between scalars must use BOOL modifier');
  if (lt !== 'scalar' && lt !== 'vector')
    fail(expr.lhs, 'binary expression must contain only scalar and instant vector types');
  if (rt !== 'scalar' && rt !== 'vector')
    fail(expr.rhs, 'binary expression must contain only scalar and instant vector types');
  if ((lt !== 'vector' || rt !== 'vector') && expr.matching !== undefined && expr.matching.labels.length > 0)
    fail(expr, 'vector matching only allowed between instant vectors');
  if ((lt === 'scalar' || rt === 'scalar') && setOp)
    fail(expr, `set operator ${JSON.stringify(expr.op)} not allowed in binary scalar expression`);
}
