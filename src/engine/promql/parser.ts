/**
 * PromQL's parser: a precedence-climbing reading of Prometheus's grammar into the tree of ast.ts, with Prometheus's
 * precedence (`-1^2` is -1), its modifiers (`offset`, `@`, ranges, subqueries) and its parse error messages.
 */
import type { AtModifier, Expr, PosRange, VectorMatching, VectorSelector } from './ast.js';
import { checkTypes } from './check-types.js';
import { AGGREGATORS, PARAMETRIC_AGGREGATORS } from './aggregations/aggregation-table.js';
import { functionDef } from './functions/function-table.js';
import { type Token, tokenize } from './lexer.js';
import { parseLabelList, parseSelector } from './parse-selector.js';
import { TokenStream } from './token-stream.js';
import { PromqlError } from './promql-error.js';

export interface ParseOptions {
  /** Allows the functions Prometheus marks experimental (its `--enable-feature=promql-experimental-functions`). */
  readonly experimentalFunctions?: boolean;
}

/** Parses and type-checks an expression; throws a `bad_data` PromqlError with Prometheus's message. */
export function parseExpr(query: string, options: ParseOptions = {}): Expr {
  const expr = new Parser(tokenize(query), options).parseTop();
  checkTypes(expr, options);
  return expr;
}

/** Binding strength of the binary operators, loosest first; `^` is the only right-associative one. */
const PRECEDENCE: Readonly<Record<string, number>> = {
  or: 1,
  and: 2,
  unless: 2,
  '==': 3,
  '!=': 3,
  '<=': 3,
  '<': 3,
  '>=': 3,
  '>': 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  atan2: 5,
  '^': 6,
};
/** Unary minus binds like `*` in Prometheus's grammar: looser than `^`, tighter than everything else. */
const UNARY_OPERAND_PRECEDENCE = 6;

class Parser extends TokenStream {
  constructor(
    tokens: readonly Token[],
    private readonly options: ParseOptions,
  ) {
    super(tokens);
  }

  parseTop(): Expr {
    if (this.peek().kind === 'eof') throw new PromqlError('bad_data', 'no expression found in input', 0);
    const expr = this.parseBinary(0);
    const t = this.peek();
    if (t.kind !== 'eof') this.unexpected(t, 'end of input');
    return expr;
  }

  private binaryOp(t: Token): string | undefined {
    if (t.kind === 'op' && PRECEDENCE[t.text] !== undefined) return t.text;
    if (t.kind === 'ident') {
      const word = t.text.toLowerCase();
      if (word === 'and' || word === 'or' || word === 'unless' || word === 'atan2') return word;
    }
    return undefined;
  }

  private parseBinary(minPrecedence: number): Expr {
    let lhs = this.parseUnary();
    for (;;) {
      const opToken = this.peek();
      const op = this.binaryOp(opToken);
      if (op === undefined) return lhs;
      const precedence = PRECEDENCE[op]!;
      if (precedence < minPrecedence) return lhs;
      this.next();
      let returnBool = false;
      if (this.isKeyword(this.peek(), 'bool')) {
        this.next();
        returnBool = true;
      }
      const matching = this.parseMatching(op);
      const rhs = this.parseBinary(op === '^' ? precedence : precedence + 1);
      lhs = {
        kind: 'binary',
        op,
        lhs,
        rhs,
        returnBool,
        matching,
        pos: { start: lhs.pos.start, end: rhs.pos.end },
      };
      (lhs as { opPos?: number }).opPos = opToken.start;
    }
  }

  private parseMatching(op: string): VectorMatching | undefined {
    const setOp = op === 'and' || op === 'or' || op === 'unless';
    let on = false;
    let labels: string[] = [];
    let hasClause = false;
    const t = this.peek();
    if (this.isKeyword(t, 'on') || this.isKeyword(t, 'ignoring')) {
      this.next();
      on = this.isKeyword(t, 'on');
      labels = parseLabelList(this, 'grouping opts');
      hasClause = true;
    }
    let card: VectorMatching['card'] = setOp ? 'many-to-many' : 'one-to-one';
    let include: string[] = [];
    const g = this.peek();
    if (this.isKeyword(g, 'group_left') || this.isKeyword(g, 'group_right')) {
      this.next();
      if (setOp) throw new PromqlError('bad_data', `no grouping allowed for "${op}" operation`, g.start);
      card = this.isKeyword(g, 'group_left') ? 'many-to-one' : 'one-to-many';
      if (this.is(this.peek(), '(')) include = parseLabelList(this, 'grouping opts');
      hasClause = true;
      for (const name of include)
        if (on && labels.includes(name))
          throw new PromqlError('bad_data', `label "${name}" must not occur in ON and GROUP clause at once`, g.start);
    }
    return hasClause || setOp ? { card, on, labels, include } : undefined;
  }

  private parseUnary(): Expr {
    const t = this.peek();
    if (this.is(t, '-') || this.is(t, '+')) {
      this.next();
      const operand = this.parseBinary(UNARY_OPERAND_PRECEDENCE);
      const pos = { start: t.start, end: operand.pos.end };
      if (operand.kind === 'number')
        return { kind: 'number', value: t.text === '-' ? -operand.value : operand.value, pos };
      return { kind: 'unary', op: t.text as '-' | '+', expr: operand, pos };
    }
    return this.parsePostfix(this.parsePrimary());
  }

  /** Ranges, subqueries, `offset` and `@`, in any order Prometheus accepts. */
  private parsePostfix(expr: Expr): Expr {
    for (;;) {
      const t = this.peek();
      if (this.is(t, '[')) expr = this.parseRange(expr);
      else if (this.isKeyword(t, 'offset')) {
        this.next();
        const sign = this.is(this.peek(), '-') ? -1 : 1;
        if (this.is(this.peek(), '-') || this.is(this.peek(), '+')) this.next();
        const ms = sign * this.parseDurationValue('offset', false);
        const target = expr.kind === 'matrix' ? expr.selector : expr;
        if (target.kind !== 'vector' && target.kind !== 'subquery')
          throw new PromqlError(
            'bad_data',
            'offset modifier must be preceded by an instant vector selector or range vector selector or a subquery',
            t.start,
          );
        if (target.offsetMs !== 0 || (target as { offsetSet?: boolean }).offsetSet)
          throw new PromqlError('bad_data', 'offset may not be set multiple times', t.start);
        target.offsetMs = ms;
        (target as { offsetSet?: boolean }).offsetSet = true;
        expr = { ...expr, pos: { start: expr.pos.start, end: this.peek(-1).end } } as Expr;
        if (expr.kind === 'matrix') expr = { ...expr, selector: target as VectorSelector };
      } else if (this.is(t, '@')) {
        this.next();
        const at = this.parseAt();
        const target = expr.kind === 'matrix' ? expr.selector : expr;
        if (target.kind !== 'vector' && target.kind !== 'subquery')
          throw new PromqlError(
            'bad_data',
            '@ modifier must be preceded by an instant vector selector or range vector selector or a subquery',
            t.start,
          );
        if (target.at !== undefined)
          throw new PromqlError('bad_data', '@ <timestamp> may not be set multiple times', t.start);
        target.at = at;
      } else return expr;
    }
  }

  private parseAt(): AtModifier {
    const t = this.next();
    if ((this.isKeyword(t, 'start') || this.isKeyword(t, 'end')) && this.is(this.peek(), '(')) {
      this.next();
      this.expect(')', '@');
      return { kind: this.isKeyword(t, 'start') ? 'start' : 'end' };
    }
    let sign = 1;
    let n = t;
    if (this.is(t, '-') || this.is(t, '+')) {
      sign = this.is(t, '-') ? -1 : 1;
      n = this.next();
    }
    let seconds: number;
    if (n.kind === 'number') seconds = n.value;
    else if (n.kind === 'duration') seconds = n.value / 1000;
    else if (n.kind === 'ident' && /^(inf|nan)$/i.test(n.text)) seconds = Number.NaN;
    else this.unexpected(n, 'timestamp', '@');
    const ms = Math.round(sign * seconds * 1000);
    if (!Number.isFinite(sign * seconds) || Math.abs(ms) > 9.2233720368547e15)
      throw new PromqlError('bad_data', `timestamp out of bounds for @ modifier: ${sign * seconds}`, n.start);
    return { kind: 'time', ms };
  }

  /** A number of seconds or a duration, as milliseconds. */
  private parseDurationValue(context: string, positive: boolean): number {
    const t = this.next();
    let ms: number;
    if (t.kind === 'duration') ms = t.value;
    else if (t.kind === 'number') ms = Math.round(t.value * 1000);
    else this.unexpected(t, 'number, duration, step(), or range()', context);
    if (positive && ms <= 0) throw new PromqlError('bad_data', 'duration must be greater than 0', t.start);
    return ms;
  }

  private parseRange(expr: Expr): Expr {
    const open = this.next();
    const rangeMs = this.parseDurationValue('subquery or range selector', true);
    const t = this.next();
    if (this.is(t, ']')) {
      let message: string | undefined;
      if (expr.kind !== 'vector') message = 'ranges only allowed for vector selectors';
      else if ((expr as { offsetSet?: boolean }).offsetSet) message = 'no offset modifiers allowed before range';
      else if (expr.at !== undefined) message = 'no @ modifiers allowed before range';
      if (message !== undefined) throw new PromqlError('bad_data', message, open.start);
      return { kind: 'matrix', selector: expr as VectorSelector, rangeMs, pos: { start: expr.pos.start, end: t.end } };
    }
    if (!this.is(t, ':')) this.unexpected(t, '":" or "]"', 'subquery or range');
    let stepMs = 0;
    if (!this.is(this.peek(), ']')) stepMs = this.parseDurationValue('subquery selector', true);
    const close = this.expect(']', 'subquery selector');
    return {
      kind: 'subquery',
      expr,
      rangeMs,
      stepMs,
      offsetMs: 0,
      at: undefined,
      pos: { start: expr.pos.start, end: close.end },
    };
  }

  private parsePrimary(): Expr {
    const t = this.next();
    const pos: PosRange = { start: t.start, end: t.end };
    if (t.kind === 'number') return { kind: 'number', value: t.value, pos };
    if (t.kind === 'duration') return { kind: 'number', value: t.value / 1000, pos };
    if (t.kind === 'string') return { kind: 'string', value: t.text, pos };
    if (this.is(t, '(')) {
      const expr = this.parseBinary(0);
      const close = this.expect(')', 'paren expression');
      return { kind: 'paren', expr, pos: { start: t.start, end: close.end } };
    }
    if (this.is(t, '{')) return parseSelector(this, undefined, t);
    if (t.kind !== 'ident') this.unexpected(t);
    const word = t.text.toLowerCase();
    if (word === 'inf' || word === 'nan') return { kind: 'number', value: word === 'inf' ? Infinity : Number.NaN, pos };
    if (AGGREGATORS.has(word)) return this.parseAggregation(word, t);
    if (this.is(this.peek(), '(')) return this.parseCall(t);
    if (
      [
        'by',
        'without',
        'on',
        'ignoring',
        'group_left',
        'group_right',
        'bool',
        'offset',
        'and',
        'or',
        'unless',
        'atan2',
      ].includes(word)
    )
      this.unexpected(t);
    return parseSelector(this, t.text, t);
  }

  private parseCall(name: Token): Expr {
    const def = functionDef(name.text);
    if (def === undefined || (def.experimental === true && this.options.experimentalFunctions !== true))
      throw new PromqlError('bad_data', `unknown function with name "${name.text}"`, name.start);
    this.next();
    const args: Expr[] = [];
    while (!this.is(this.peek(), ')')) {
      args.push(this.parseBinary(0));
      if (this.is(this.peek(), ',')) {
        const comma = this.next();
        if (this.is(this.peek(), ')'))
          throw new PromqlError('bad_data', 'trailing commas not allowed in function call args', comma.start);
      } else if (!this.is(this.peek(), ')')) this.unexpected(this.peek(), '"," or ")"', 'function call');
    }
    const close = this.next();
    return { kind: 'call', func: name.text, args, pos: { start: name.start, end: close.end } };
  }

  private parseAggregation(op: string, t: Token): Expr {
    let grouping: string[] = [];
    let without = false;
    let hasModifier = false;
    const modifier = (): void => {
      const m = this.peek();
      if (this.isKeyword(m, 'by') || this.isKeyword(m, 'without')) {
        this.next();
        without = this.isKeyword(m, 'without');
        grouping = parseLabelList(this, 'grouping opts');
        hasModifier = true;
      }
    };
    modifier();
    if (!this.is(this.peek(), '(')) this.unexpected(this.peek(), '"("', 'aggregation');
    this.next();
    const args: Expr[] = [];
    while (!this.is(this.peek(), ')')) {
      args.push(this.parseBinary(0));
      if (this.is(this.peek(), ',')) this.next();
      else if (!this.is(this.peek(), ')')) this.unexpected(this.peek(), '"," or ")"', 'aggregation');
    }
    const close = this.next();
    if (!hasModifier) modifier();
    const parametric = PARAMETRIC_AGGREGATORS.has(op);
    if (args.length !== (parametric ? 2 : 1)) {
      const message =
        args.length === 0
          ? 'no arguments for aggregate expression provided'
          : `wrong number of arguments for aggregate expression provided, expected ${parametric ? 2 : 1}, got ${args.length}`;
      throw new PromqlError('bad_data', message, close.start);
    }
    const expr = args[parametric ? 1 : 0]!;
    const param = parametric ? args[0] : undefined;
    return { kind: 'aggregate', op, expr, param, grouping, without, pos: { start: t.start, end: this.peek(-1).end } };
  }
}
