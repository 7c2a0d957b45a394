/**
 * Starts the real gateway on 127.0.0.1 over a given store and speaks KairosDB's REST API to it the way clients do:
 * exact bodies (text, or bytes such as gzip), and the status, headers and raw text of every answer.
 */
import type { Store } from '../../src/store/store.js';
import { startGateway, type TestGateway } from '../support/gateway.js';

export interface RestResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  /** The body parsed with JSON.parse (exact for everything but longs beyond 2^53: assert those on `text`). */
  readonly json: unknown;
}

export interface RestCall {
  /** A JSON-able value is sent as JSON text; a string or Buffer as is. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RestGateway extends TestGateway {
  call(method: string, path: string, options?: RestCall): Promise<RestResponse>;
}

export async function startRestGateway(store: Store, env: Record<string, string> = {}): Promise<RestGateway> {
  const gateway = await startGateway(store, env);
  return { ...gateway, call: (method, path, options) => callRest(gateway.url, method, path, options) };
}

/**
 * One request to any server that speaks KairosDB's REST API at `baseUrl`. `json` is JSON.parse of the body, which throws
 * on a body that is not JSON: the gateway always answers JSON. With `lenientJson` (KairosDB answers unknown paths in
 * Jetty's HTML) such a body gives `json: undefined` instead.
 */
export async function callRest(
  baseUrl: string,
  method: string,
  path: string,
  options: RestCall = {},
  lenientJson = false,
): Promise<RestResponse> {
  const { body } = options;
  const payload =
    body === undefined
      ? undefined
      : typeof body === 'string'
        ? body
        : Buffer.isBuffer(body)
          ? new Uint8Array(body)
          : JSON.stringify(body);
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    // Identity unless a test asks: the suites pin exact headers (fetch would ask for gzip); compression has its own.
    headers: {
      'x-request-id': REQUEST_ID,
      'accept-encoding': 'identity',
      ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(payload !== undefined ? { body: payload } : {}),
  });
  const text = await response.text();
  const headers = Object.fromEntries(
    [...response.headers].filter(([name]) => name !== 'date' && name !== 'keep-alive'),
  );
  return { status: response.status, headers, text, json: parseJson(text, lenientJson) };
}

function parseJson(text: string, lenient: boolean): unknown {
  if (text === '') return undefined;
  if (!lenient) return JSON.parse(text);
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The default COMPRESSION_MIN_BYTES: from this size on, answers may be compressed, so they vary by Accept-Encoding. */
const COMPRESSION_MIN_BYTES = 32 * 1024;

/** Every call sends this id; the API echoes it on the answers of the requests it handles. */
export const REQUEST_ID = 'rest-suite';

/**
 * What every JSON answer of the API carries besides its body (KairosDB's `setHeaders` but its CORS header, which
 * is CORS_ORIGINS's: COMPATIBILITY.md; plus length and type, the
 * request id on the answers of paths and methods it serves, and `Vary` on answers large enough to be compressed).
 */
export function jsonHeaders(text: string, extra: Record<string, string> = {}, handled = true): Record<string, string> {
  const bytes = Buffer.byteLength(text);
  return {
    ...(bytes >= COMPRESSION_MIN_BYTES ? { vary: 'Accept-Encoding' } : {}),
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'content-length': String(bytes),
    'content-type': 'application/json; charset=UTF-8',
    expires: '0',
    pragma: 'no-cache',
    ...(handled ? { 'x-request-id': REQUEST_ID } : {}),
    ...extra,
  };
}

/** The headers of a 204. */
export const NO_CONTENT_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  expires: '0',
  pragma: 'no-cache',
  'x-request-id': REQUEST_ID,
};
