/**
 * The syntax tree of a PromQL expression, as the parser builds it and the type checker and evaluator read it. Times
 * are milliseconds; positions are character offsets into the query, for Prometheus's `line:column` in messages.
 */
import type { Matcher } from './matcher.js';

export type ValueType = 'scalar' | 'vector' | 'matrix' | 'string';

export interface PosRange {
  readonly start: number;
  readonly end: number;
}

/** `@ <time>`, `@ start()` or `@ end()`; the latter two resolve to the query's range once it is known. */
export type AtModifier = { readonly kind: 'time'; readonly ms: number } | { readonly kind: 'start' | 'end' };

interface NumberLiteral {
  readonly kind: 'number';
  readonly value: number;
  readonly pos: PosRange;
}

interface StringLiteral {
  readonly kind: 'string';
  readonly value: string;
  readonly pos: PosRange;
}

export interface VectorSelector {
  readonly kind: 'vector';
  /** The metric name when written outside the braces (or as the braces' bare quoted name), for printing. */
  readonly name: string | undefined;
  readonly matchers: readonly Matcher[];
  offsetMs: number;
  at: AtModifier | undefined;
  readonly pos: PosRange;
}

export interface MatrixSelector {
  readonly kind: 'matrix';
  readonly selector: VectorSelector;
  readonly rangeMs: number;
  readonly pos: PosRange;
}

export interface SubqueryExpr {
  readonly kind: 'subquery';
  readonly expr: Expr;
  readonly rangeMs: number;
  /** 0 when the query did not give one: the engine's default subquery step applies. */
  readonly stepMs: number;
  offsetMs: number;
  at: AtModifier | undefined;
  readonly pos: PosRange;
}

export interface Call {
  readonly kind: 'call';
  readonly func: string;
  readonly args: readonly Expr[];
  readonly pos: PosRange;
}

export interface AggregateExpr {
  readonly kind: 'aggregate';
  readonly op: string;
  readonly expr: Expr;
  readonly param: Expr | undefined;
  readonly grouping: readonly string[];
  readonly without: boolean;
  readonly pos: PosRange;
}

type Cardinality = 'one-to-one' | 'many-to-one' | 'one-to-many' | 'many-to-many';

export interface VectorMatching {
  readonly card: Cardinality;
  /** True for `on(...)`, false for `ignoring(...)` or no clause. */
  readonly on: boolean;
  readonly labels: readonly string[];
  /** The labels of `group_left(...)`/`group_right(...)`, copied from the "one" side. */
  readonly include: readonly string[];
}

export interface BinaryExpr {
  readonly kind: 'binary';
  readonly op: string;
  readonly lhs: Expr;
  readonly rhs: Expr;
  readonly returnBool: boolean;
  readonly matching: VectorMatching | undefined;
  readonly pos: PosRange;
}

interface UnaryExpr {
  readonly kind: 'unary';
  readonly op: '-' | '+';
  readonly expr: Expr;
  readonly pos: PosRange;
}

interface ParenExpr {
  readonly kind: 'paren';
  readonly expr: Expr;
  readonly pos: PosRange;
}

export type Expr =
  | NumberLiteral
  | StringLiteral
  | VectorSelector
  | MatrixSelector
  | SubqueryExpr
  | Call
  | AggregateExpr
  | BinaryExpr
  | UnaryExpr
  | ParenExpr;

export const COMPARISON_OPS: ReadonlySet<string> = new Set(['==', '!=', '>', '<', '>=', '<=']);
export const SET_OPS: ReadonlySet<string> = new Set(['and', 'or', 'unless']);
