/**
 * The binary operators on float samples: arithmetic (which changes what a series measures, so the metric name goes)
 * and comparison (which filters, or answers 0/1 with `bool`). Set operators are matching only: eval-binary.ts.
 */

export interface OperatorDef {
  readonly op: string;
  readonly comparison: boolean;
  /** For arithmetic the result; for comparisons 1 when the comparison holds, else 0. */
  apply(lhs: number, rhs: number): number;
}

/** Go's math.Pow, which differs from `**` where the base is 1 or -1 and the exponent NaN or infinite. */
function pow(x: number, y: number): number {
  if (x === 1) return 1;
  if (x === -1 && !Number.isFinite(y) && !Number.isNaN(y)) return 1;
  return x ** y;
}

const ARITHMETIC: readonly OperatorDef[] = [
  { op: '+', comparison: false, apply: (a, b) => a + b },
  { op: '-', comparison: false, apply: (a, b) => a - b },
  { op: '*', comparison: false, apply: (a, b) => a * b },
  { op: '/', comparison: false, apply: (a, b) => a / b },
  { op: '%', comparison: false, apply: (a, b) => a % b },
  { op: '^', comparison: false, apply: pow },
  { op: 'atan2', comparison: false, apply: Math.atan2 },
];

const COMPARISON: readonly OperatorDef[] = [
  { op: '==', comparison: true, apply: (a, b) => (a === b ? 1 : 0) },
  { op: '!=', comparison: true, apply: (a, b) => (a !== b ? 1 : 0) },
  { op: '>', comparison: true, apply: (a, b) => (a > b ? 1 : 0) },
  { op: '<', comparison: true, apply: (a, b) => (a < b ? 1 : 0) },
  { op: '>=', comparison: true, apply: (a, b) => (a >= b ? 1 : 0) },
  { op: '<=', comparison: true, apply: (a, b) => (a <= b ? 1 : 0) },
];

const OPERATORS: ReadonlyMap<string, OperatorDef> = new Map([...ARITHMETIC, ...COMPARISON].map((d) => [d.op, d]));

export function operatorDef(op: string): OperatorDef {
  const def = OPERATORS.get(op);
  if (def === undefined) throw new Error(`no operator ${op}`);
  return def;
}
