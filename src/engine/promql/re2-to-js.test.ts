/**
 * Go's regular expression syntax read by JavaScript: flag groups, named groups, and what anchored matchers then
 * accept.
 */
import { describe, expect, it } from 'vitest';
import { compileAnchored } from './matcher.js';
import { re2ToJs } from './re2-to-js.js';

describe('re2ToJs', () => {
  it('rewrites flag groups and named groups', () => {
    expect(re2ToJs('(?i)pro.*')).toEqual({ source: 'pro.*', ignoreCase: true });
    expect(re2ToJs('.*(?i:ab)c')).toEqual({ source: '.*(?:[aA][bB])c', ignoreCase: false });
    expect(re2ToJs('x((?i)a[b-c])d')).toEqual({ source: 'x([aA][b-cB-C])d', ignoreCase: false });
    expect(re2ToJs('(?P<host>[^:]+):\\d+')).toEqual({ source: '(?<host>[^:]+):\\d+', ignoreCase: false });
  });

  it('anchors matchers and lets the dot match newlines, as Prometheus 3 does', () => {
    const re = compileAnchored('.*(?i:TION)');
    expect(['production', 'PRODUCTION', 'producTIONs', 'a\nproduction'].map((v) => re.test(v))).toEqual([
      true,
      true,
      false,
      true,
    ]);
    expect(() => compileAnchored('(')).toThrow('error parsing regexp: invalid regular expression: `(`');
  });
});
