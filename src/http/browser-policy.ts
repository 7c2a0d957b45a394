/**
 * What browsers may do with the gateway, decided once for every front end: which Host names it answers (DNS
 * rebinding), which origins may call it from a page (CORS_ORIGINS; none by default), and the CORS headers those get.
 * Non-browser clients (Grafana's server, collectors, curl) send no Origin and are not affected.
 */
import { isIP } from 'node:net';
import { ForbiddenOriginError, ForbiddenHostError } from '../model/errors.js';

export interface BrowserPolicySettings {
  /** The address the gateway listens on (HOST). */
  readonly host: string;
  /** ALLOWED_HOSTS: `auto`, `*`, or names (a leading dot allows every subdomain). */
  readonly allowedHosts: 'auto' | '*' | readonly string[];
  /** CORS_ORIGINS: origins (`scheme://host[:port]`) pages may call from, or `*` for any page without credentials. */
  readonly corsOrigins: '*' | readonly string[];
}

/** Headers a page may read from a cross-origin answer besides the CORS-safelisted ones. */
const EXPOSED = 'x-request-id, retry-after, ratelimit, ratelimit-policy, www-authenticate';

export class BrowserPolicy {
  private readonly anyHost: boolean;
  private readonly hostNames: readonly string[];
  private readonly origins: ReadonlySet<string>;
  private readonly anyOrigin: boolean;

  constructor(settings: BrowserPolicySettings) {
    const auto = settings.allowedHosts === 'auto';
    // A gateway on a loopback address is reached by name only from this machine's browsers, through a rebinding
    // page; one open to the network is reached by names the operator knows and may list.
    this.anyHost = settings.allowedHosts === '*' || (auto && !isLoopback(settings.host));
    this.hostNames = Array.isArray(settings.allowedHosts)
      ? settings.allowedHosts.map((name) => name.toLowerCase())
      : [];
    this.anyOrigin = settings.corsOrigins === '*';
    this.origins = new Set(Array.isArray(settings.corsOrigins) ? settings.corsOrigins : []);
  }

  /**
   * Refuses a Host header that names neither an IP address, `localhost`, nor an allowed name. A browser sends the
   * name of the page's own site, so a page whose name was rebound to 127.0.0.1 is refused here; a request without
   * Host (HTTP/1.0) comes from no browser.
   */
  checkHost(host: string | undefined): void {
    if (host === undefined || host === '' || this.anyHost) return;
    const name = hostName(host);
    if (name === undefined) throw new ForbiddenHostError(host);
    if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')) return;
    if (
      this.hostNames.some((allowed) =>
        allowed.startsWith('.') ? name.endsWith(allowed) || name === allowed.slice(1) : name === allowed,
      )
    )
      return;
    throw new ForbiddenHostError(host);
  }

  /**
   * The CORS headers of an answer to a request from `origin`: none for a request without Origin or from the
   * gateway's own origin; the allow-list's for a listed origin. Throws ForbiddenOriginError for any other origin,
   * whatever the method, so a page elsewhere can neither read nor change anything.
   */
  check(
    origin: string | undefined,
    host: string | undefined,
    forwardedHost: string | undefined,
  ): Readonly<Record<string, string>> {
    if (origin === undefined) return {};
    if (origin !== 'null') {
      const authority = originAuthority(origin);
      if (
        authority !== undefined &&
        (authority === hostAuthority(host, origin) ||
          authority === hostAuthority(forwardedHost?.split(',')[0]?.trim(), origin))
      )
        return {};
      if (this.origins.has(origin.toLowerCase())) {
        return {
          'access-control-allow-origin': origin,
          'access-control-allow-credentials': 'true',
          'access-control-expose-headers': EXPOSED,
          vary: 'Origin',
        };
      }
      // Any page, but never with the browser's credentials: `*` makes browsers leave them out.
      if (this.anyOrigin) return { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED };
    }
    throw new ForbiddenOriginError(origin);
  }

  /** The answer to a CORS preflight from an allowed origin (check() passed): what it may send, for a day. */
  preflightHeaders(requestedHeaders: string | undefined): Readonly<Record<string, string>> {
    return {
      'access-control-allow-methods': 'GET, POST, PUT, DELETE',
      'access-control-allow-headers':
        requestedHeaders !== undefined && /^[\w\-, ]{1,1024}$/.test(requestedHeaders)
          ? requestedHeaders
          : 'content-type',
      'access-control-max-age': '86400',
    };
  }
}

/** Media types a page's form or script may send to any site without a CORS preflight (the Fetch standard's list). */
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

/**
 * Headers that no browser lets a page of another site send without a preflight, which CORS_ORIGINS then decides: a
 * request with one of them was not sent by another site's form. Both front ends take the same list (GraphQL through
 * yoga's CSRF plugin, which asks it of GETs too). `Authorization` is not one: browsers add Basic by themselves.
 */
export const PREFLIGHTED_HEADERS = [
  'x-kairograph-token',
  'x-requested-with',
  'x-graphql-yoga-csrf',
  'apollo-require-preflight',
];

/**
 * True when a request could have come from another site's form or a script's simple request, which browsers send
 * with their stored credentials and no preflight: a body of a form's or text's media type, or none, and none of
 * PREFLIGHTED_HEADERS.
 */
export function couldBeCrossSiteForm(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  if (PREFLIGHTED_HEADERS.some((name) => headers[name] !== undefined)) return false;
  const type = headers['content-type'];
  const media = typeof type === 'string' ? type.split(';', 1)[0]!.trim().toLowerCase() : '';
  return media === '' || SIMPLE_TYPES.has(media);
}

/** True for addresses that only this machine can reach (HOST=localhost, 127.x.y.z, ::1). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '::ffff:127.0.0.1';
}

/** `Example.com:4000` → `example.com`, `[::1]:4000` → `::1`; undefined for a value that is no host. */
function hostName(host: string): string | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:/@[\]]+))(?::\d{1,5})?$/.exec(host.trim());
  if (match === null) return undefined;
  return (match[1] ?? match[2]!).toLowerCase().replace(/\.$/, '');
}

/** `https://Grafana.example:443` → `grafana.example` (URL drops the scheme's default port). */
function originAuthority(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : undefined;
  } catch {
    return undefined;
  }
}

/** A Host header as an origin of the same scheme would show it: lower case, without that scheme's default port. */
function hostAuthority(host: string | undefined, origin: string): string | undefined {
  if (host === undefined || host === '') return undefined;
  try {
    return new URL(`${new URL(origin).protocol}//${host}`).host;
  } catch {
    return undefined;
  }
}
