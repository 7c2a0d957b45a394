/** Errors of the KairosDB REST facade that have no place in the project's typed errors (HTTP-level refusals). */

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
