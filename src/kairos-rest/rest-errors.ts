/**
 * Errors of the KairosDB REST facade that have no place in the project's typed errors (HTTP-level refusals), and
 * the re-homing of an InputError under the field path a KairosDB client sent (`query.metric[1].aggregators[0]`).
 */
import { InputError } from '../model/errors.js';

/** A refusal before any query or write runs: unknown path (404), wrong method (405), body too large (413), ... */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/**
 * The same error, its field renamed: the message keeps its reason and value, only the leading field changes, so
 * the engine's `aggregators[0].percentile …` reads `query.metric[2].aggregators[0].percentile …` over REST.
 */
export function renamedInputError(error: InputError, field: string): InputError {
  const renamed = new InputError(field, error.value, '');
  renamed.message = error.message.startsWith(error.field)
    ? field + error.message.slice(error.field.length)
    : `${field}: ${error.message}`;
  return renamed;
}
