/**
 * The parser and the typed pass: Prometheus's precedence, modifiers, literals and quoted names, and the errors it
 * gives for what Prometheus refuses.
 */
import { describe, expect, it } from 'vitest';
import type { Expr } from './ast.js';
import { parseExpr } from './parser.js';
import { PromqlError, parseErrorMessage } from './promql-error.js';

/** A compact rendering of the tree, enough to see how it grouped. */
function shape(e: Expr): string {
  switch (e.kind) {
    case 'number':
      return String(e.value);
    case 'string':
      return JSON.stringify(e.value);
    case 'vector':
      return `${e.matchers.map((m) => `${m.name}${m.op}${m.value}`).join(',')}${e.offsetMs !== 0 ? ` offset ${e.offsetMs}` : ''}${e.at === undefined ? '' : ` @ ${e.at.kind === 'time' ? e.at.ms : e.at.kind}`}`;
    case 'matrix':
      return `${shape(e.selector)}[${e.rangeMs}]`;
    case 'subquery':
      return `(${shape(e.expr)})[${e.rangeMs}:${e.stepMs}]${e.offsetMs !== 0 ? ` offset ${e.offsetMs}` : ''}${e.at === undefined ? '' : ` @ ${e.at.kind === 'time' ? e.at.ms : e.at.kind}`}`;
    case 'call':
      return `${e.func}(${e.args.map(shape).join(', ')})`;
    case 'aggregate':
      return `${e.op}${e.without ? ' without' : ' by'}(${e.grouping.join(',')})(${e.param === undefined ? '' : `${shape(e.param)}, `}${shape(e.expr)})`;
    case 'binary':
      return `(${shape(e.lhs)} ${e.op}${e.returnBool ? ' bool' : ''}${e.matching === undefined ? '' : ` ${e.matching.card}${e.matching.on ? ' on' : ' ignoring'}(${e.matching.labels.join(',')})(${e.matching.include.join(',')})`} ${shape(e.rhs)})`;
    case 'unary':
      return `${e.op}(${shape(e.expr)})`;
    case 'paren':
      return `[${shape(e.expr)}]`;
  }
}

function parseError(query: string): string {
  try {
    parseExpr(query, { experimentalFunctions: true });
  } catch (error) {
    if (error instanceof PromqlError) return `${error.type}: ${parseErrorMessage(query, error)}`;
    throw error;
  }
  throw new Error(`${query} parsed`);
}

describe('parseExpr', () => {
  it('binds unary minus looser than ^, as Prometheus does (-1^2 is -(1^2))', () => {
    expect(shape(parseExpr('-1^2'))).toBe('-((1 ^ 2))');
    expect(shape(parseExpr('2^3^2'))).toBe('(2 ^ (3 ^ 2))');
    expect(shape(parseExpr('-2 * 3'))).toBe('(-2 * 3)');
    expect(shape(parseExpr('a or b and c unless d')).replaceAll(' many-to-many ignoring()()', '')).toBe(
      '(__name__=a or ((__name__=b and __name__=c) unless __name__=d))',
    );
    expect(shape(parseExpr('1 + 2 * 3 > bool 4'))).toBe('((1 + (2 * 3)) > bool 4)');
  });

  it('reads selectors with quoted UTF-8 names, matchers, ranges, offsets and @', () => {
    expect(shape(parseExpr('{"system.cpu.usage", host="a"}'))).toBe('__name__=system.cpu.usage,host=a');
    expect(shape(parseExpr('foo{"host.name"=~"a.*", b!="c"}[5m] offset -1m @ 100'))).toBe(
      '__name__=foo,host.name=~a.*,b!=c offset -60000 @ 100000[300000]',
    );
    expect(shape(parseExpr('rate(foo[1h30m])'))).toBe('rate(__name__=foo[5400000])');
    expect(shape(parseExpr('foo @ start()'))).toBe('__name__=foo @ start');
    expect(shape(parseExpr('sum(rate(foo[5m]))[30m:1m] @ end() offset 5m'))).toBe(
      '(sum by()(rate(__name__=foo[300000])))[1800000:60000] offset 300000 @ end',
    );
    expect(shape(parseExpr('foo[300]'))).toBe('__name__=foo[300000]');
  });

  it('reads literals as Prometheus does', () => {
    expect(shape(parseExpr('0x1F + 1e3 + .5 + Inf + 5m'))).toBe('((((31 + 1000) + 0.5) + Infinity) + 300)');
    expect(shape(parseExpr(`"a\\x41\\u00e9\\n" + 'b' + \`c\\n\``.replace(/ \+ .*/, '')))).toBe(JSON.stringify('aAé\n'));
    expect(shape(parseExpr('`c\\n`'))).toBe(JSON.stringify('c\\n'));
  });

  it('reads aggregations and vector matching in every position', () => {
    expect(shape(parseExpr('sum without (a, "b.c") (foo)'))).toBe('sum without(a,b.c)(__name__=foo)');
    expect(shape(parseExpr('topk(3, foo) by (job)'))).toBe('topk by(job)(3, __name__=foo)');
    expect(shape(parseExpr('SUM BY (on) (foo)'))).toBe('sum by(on)(__name__=foo)');
    expect(shape(parseExpr('a * on(x) group_left(y) b'))).toBe('(__name__=a * many-to-one on(x)(y) __name__=b)');
    expect(shape(parseExpr('a / ignoring(x) group_right b'))).toBe(
      '(__name__=a / one-to-many ignoring(x)() __name__=b)',
    );
    expect(shape(parseExpr('a and b'))).toBe('(__name__=a and many-to-many ignoring()() __name__=b)');
  });

  it('refuses what Prometheus refuses, with its messages and positions', () => {
    expect(parseError('rate(foo)')).toBe(
      'bad_data: 1:6: parse error: expected type range vector in call to function "rate", got instant vector',
    );
    expect(parseError('abs(foo, 1)')).toBe(
      'bad_data: 1:1: parse error: expected 1 argument(s) in call to "abs", got 2',
    );
    expect(parseError('label_join(foo)')).toBe(
      'bad_data: 1:1: parse error: expected at least 3 argument(s) in call to "label_join", got 1',
    );
    expect(parseError('round(foo, 1, 2)')).toBe(
      'bad_data: 1:1: parse error: expected at most 2 argument(s) in call to "round", got 3',
    );
    expect(parseError('topk(foo, bar)')).toBe(
      'bad_data: 1:6: parse error: expected type scalar in aggregation parameter, got instant vector',
    );
    expect(parseError('sum(foo[5m])')).toBe(
      'bad_data: 1:5: parse error: expected type instant vector in aggregation expression, got range vector',
    );
    expect(parseError('1 > 2')).toBe('bad_data: 1:1: parse error: comparisons between scalars must use BOOL modifier');
    expect(parseError('foo + bool bar')).toBe(
      'bad_data: 1:1: parse error: bool modifier can only be used on comparison operators',
    );
    expect(parseError('1 and foo')).toBe(
      'bad_data: 1:1: parse error: set operator "and" not allowed in binary scalar expression',
    );
    expect(parseError('foo and on(a) group_left bar')).toBe(
      'bad_data: 1:15: parse error: no grouping allowed for "and" operation',
    );
    expect(parseError('(foo)[5m]')).toBe('bad_data: 1:6: parse error: ranges only allowed for vector selectors');
    expect(parseError('foo[5m][1m]')).toBe('bad_data: 1:8: parse error: ranges only allowed for vector selectors');
    expect(parseError('foo[5m:1m][1m:]')).toBe(
      'bad_data: 1:1: parse error: subquery is only allowed on instant vector, got range vector instead',
    );
    expect(parseError('{a=""}')).toBe(
      'bad_data: 1:1: parse error: vector selector must contain at least one non-empty matcher',
    );
    expect(parseError('foo @ 1 @ 2')).toBe('bad_data: 1:9: parse error: @ <timestamp> may not be set multiple times');
    expect(parseError('-"a"')).toBe(
      'bad_data: 1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got "string"',
    );
    expect(parseError('nope(foo)')).toBe('bad_data: 1:1: parse error: unknown function with name "nope"');
    expect(parseError('foo[0s]')).toBe('bad_data: 1:5: parse error: duration must be greater than 0');
    expect(parseError('foo{a="b"')).toBe('bad_data: 1:10: parse error: unexpected end of input inside braces');
    expect(parseError('sum(foo')).toBe('bad_data: 1:8: parse error: unclosed left parenthesis');
    expect(parseError('foo)')).toBe("bad_data: 1:4: parse error: unexpected right parenthesis ')'");
    expect(parseError('')).toBe('bad_data: 1:1: parse error: no expression found in input');
    expect(parseError('foo{a=~"("}')).toBe(
      'bad_data: 1:8: parse error: error parsing regexp: invalid regular expression: `(`',
    );
  });

  it('keeps experimental functions and aggregations behind the option', () => {
    expect(() => parseExpr('mad_over_time(foo[5m])')).toThrow('unknown function with name "mad_over_time"');
    expect(() => parseExpr('limitk(1, foo)')).toThrow(
      'limitk() is experimental and must be enabled with --enable-feature=promql-experimental-functions',
    );
    expect(shape(parseExpr('mad_over_time(foo[5m])', { experimentalFunctions: true }))).toBe(
      'mad_over_time(__name__=foo[300000])',
    );
  });
});
