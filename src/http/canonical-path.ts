/**
 * The one path rule of the gateway: every request's target is rewritten to its canonical form before any route or
 * scope is matched, so the front ends, yoga's plugins (which match the WHATWG-normalised path) and the scope checks
 * all see the same path. Without it `/./metrics`, `/%2e/metrics` or `/x/../metrics` reached a plugin that matched
 * `/metrics` while the check in front of it compared the raw text.
 */

/**
 * The canonical form of an origin-form request target (`/path?query`), or undefined for a target that is not one
 * (absolute-form `http://host/path`, `*`, empty): those are refused rather than guessed at.
 *
 * The path is brought to what every URL parser agrees on: `\` as `/` (as WHATWG parsers read it for http), percent
 * escapes of unreserved characters decoded and other escapes upper-cased (RFC 3986 §6.2.2), dot segments removed
 * (§5.2.4), empty segments dropped and a trailing slash removed. Escapes of reserved characters (`%2F`) stay: they
 * are data inside a segment, such as a metric name with a slash. The query is kept as sent.
 */
export function canonicalTarget(target: string): string | undefined {
  if (!target.startsWith('/')) return undefined;
  const hash = target.indexOf('#');
  const withoutFragment = hash < 0 ? target : target.slice(0, hash);
  const question = withoutFragment.indexOf('?');
  if (question < 0) return canonicalPath(withoutFragment);
  return canonicalPath(withoutFragment.slice(0, question)) + withoutFragment.slice(question);
}

/** The path part of canonicalTarget: `/a//b/./c/../d/` → `/a/b/d`. */
function canonicalPath(path: string): string {
  const segments: string[] = [];
  for (const raw of path.replaceAll('\\', '/').split('/')) {
    const segment = normaliseEscapes(raw);
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** `%2e` → `.`, `%7e` → `~`, `%2f` → `%2F`; a `%` not followed by two hex digits stays as it is. */
function normaliseEscapes(segment: string): string {
  if (!segment.includes('%')) return segment;
  return segment.replace(/%([0-9A-Fa-f]{2})/g, (escaped, hex: string) => {
    const char = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escaped.toUpperCase();
  });
}

/** A request's target (already canonical: the edge rewrote it) as its path and its query's parameters. */
export function pathAndQuery(url: string | undefined): { pathname: string; query: URLSearchParams } {
  const target = url ?? '/';
  const queryAt = target.indexOf('?');
  return queryAt < 0
    ? { pathname: target, query: new URLSearchParams() }
    : { pathname: target.slice(0, queryAt), query: new URLSearchParams(target.slice(queryAt + 1)) };
}
