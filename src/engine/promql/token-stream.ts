/**
 * The parser's view of the token list: look-ahead, keyword tests (PromQL keywords are case-insensitive) and
 * Prometheus's "unexpected ..." errors.
 */
import type { Token } from './lexer.js';
import { PromqlError } from './promql-error.js';

export class TokenStream {
  protected i = 0;

  constructor(protected readonly tokens: readonly Token[]) {}

  peek(offset = 0): Token {
    return this.tokens[Math.min(this.i + offset, this.tokens.length - 1)]!;
  }

  next(): Token {
    const t = this.peek();
    if (this.i < this.tokens.length - 1) this.i++;
    return t;
  }

  is(t: Token, text: string): boolean {
    return (t.kind === 'punct' || t.kind === 'op') && t.text === text;
  }

  isKeyword(t: Token, word: string): boolean {
    return t.kind === 'ident' && t.text.toLowerCase() === word;
  }

  expect(text: string, context: string): Token {
    const t = this.next();
    if (!this.is(t, text)) this.unexpected(t, `"${text}"`, context);
    return t;
  }

  unexpected(t: Token, expected?: string, context?: string): never {
    const what = t.kind === 'eof' ? 'end of input' : describe(t);
    const inCtx = context === undefined ? '' : ` in ${context}`;
    const exp = expected === undefined ? '' : `, expected ${expected}`;
    throw new PromqlError('bad_data', `unexpected ${what}${inCtx}${exp}`, t.start);
  }
}

function describe(t: Token): string {
  if (t.kind === 'number' || t.kind === 'duration') return `number "${t.text}"`;
  if (t.kind === 'string') return `string ${JSON.stringify(t.text)}`;
  if (t.kind === 'ident') return `identifier "${t.text}"`;
  if (t.text === '(') return 'left parenthesis "("';
  if (t.text === ')') return 'right parenthesis ")"';
  if (t.text === '{') return 'left brace "{"';
  if (t.text === '}') return 'right brace "}"';
  if (t.text === '[') return 'left bracket "["';
  if (t.text === ']') return 'right bracket "]"';
  if (t.text === ',') return 'comma ","';
  return `"${t.text}"`;
}
