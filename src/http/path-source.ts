/**
 * The source a path names (`/prometheus/<source>/...`), for the front ends whose URLs carry one: the segment decoded
 * as sent, or a 404 that lists the sources the caller may use, so a typo in a data source URL says what to type.
 */
import { NotFoundError } from './http-errors.js';
import type { Principal } from '../model/principal.js';
import type { Source } from '../sources/source.js';
import type { Sources } from '../sources/sources.js';

/** `expected` completes "no source is named "x": ...", e.g. "the data source URL is /prometheus/<source>". */
export function sourceInPath(sources: Sources, principal: Principal, segment: string, expected: string): Source {
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    name = segment;
  }
  const source = sources.all.find((s) => s.name === name);
  if (source !== undefined) return source;
  const allowed = principal.sources;
  const names = sources.all.map((s) => s.name).filter((n) => allowed === undefined || allowed.has(n));
  throw new NotFoundError(`no source is named ${JSON.stringify(name)}: ${expected}, one of ${names.join(', ')}`);
}
