/**
 * The engine's errors, typed as Prometheus's API types them: `bad_data` for what the query says (parse and type
 * errors, bad parameters), `execution` for what evaluation finds (many-to-many matches, duplicate series).
 */

export type PromqlErrorType = 'bad_data' | 'execution';

export class PromqlError extends Error {
  /** Where in the query a parse error is, as a character offset; undefined for evaluation errors. */
  readonly position: number | undefined;

  constructor(
    readonly type: PromqlErrorType,
    message: string,
    position?: number,
  ) {
    super(message);
    this.name = 'PromqlError';
    this.position = position;
  }
}

/** Prometheus's `1:5: parse error: ...` form, lines and columns counted from 1. */
export function parseErrorMessage(query: string, error: PromqlError): string {
  if (error.position === undefined) return error.message;
  const before = query.slice(0, error.position);
  const line = before.split('\n').length;
  const column = error.position - before.lastIndexOf('\n');
  return `${line}:${column}: parse error: ${error.message}`;
}
