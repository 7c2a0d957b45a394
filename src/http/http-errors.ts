/**
 * Refusals of HTTP itself, before any query or write runs: a path no route serves, a method the path does not take, a
 * body too large or in a coding the gateway cannot read. Typed errors like the others: their statuses are in the one
 * table (src/model/errors.ts), and each front end renders them in its own error body.
 */
import { KairographError } from '../model/errors.js';

export class NotFoundError extends KairographError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

/** `allow` lists the methods the path takes, for the answer's Allow header. */
export class MethodNotAllowedError extends KairographError {
  constructor(
    message: string,
    readonly allow: string,
  ) {
    super('METHOD_NOT_ALLOWED', message);
  }

  override get headers(): Readonly<Record<string, string>> {
    return { allow: this.allow };
  }
}

/** The rest of the body is not read, so the connection cannot carry another request. */
export class PayloadTooLargeError extends KairographError {
  constructor(message: string) {
    super('REQUEST_ENTITY_TOO_LARGE', message);
  }

  override get headers(): Readonly<Record<string, string>> {
    return { connection: 'close' };
  }
}

export class UnsupportedMediaTypeError extends KairographError {
  constructor(message: string) {
    super('UNSUPPORTED_MEDIA_TYPE', message);
  }
}
