// How PromQL's matchers become the source's reads: the literal start of a metric-name regex, the tag filter and the
// exact values pushed into index reads, and a series' labels.
import { describe, expect, it } from 'vitest';
import { newMatcher } from '../engine/promql/matcher.js';
import type { Tags } from '../model/series.js';
import { labelsOf, literalPrefix, tagPredicate } from './promql-series.js';

describe('literalPrefix', () => {
  it('is the text every match starts with, and empty where alternatives or flags make it unsure', () => {
    expect(
      [
        'system\\.cpu\\..*',
        'system.cpu',
        'http_requests_total',
        'abc?d',
        'ab*',
        'a{2}',
        'a|b',
        '(?i)abc',
        '.*cpu',
        'node_(cpu|mem)',
      ].map(literalPrefix),
    ).toEqual(['system.cpu.', 'system', 'http_requests_total', 'ab', 'a', '', '', '', '', 'node_']);
  });
});

describe('tagPredicate', () => {
  it('treats a missing tag as the empty value, as Prometheus treats a missing label', () => {
    const predicate = tagPredicate([newMatcher('host', '!=', 'a'), newMatcher('dc', '=~', 'eu|')]);
    expect(
      ([{ host: 'b', dc: 'eu' }, { host: 'b' }, { host: 'a' }, { dc: 'us' }] as Tags[]).map((tags) => predicate(tags)),
    ).toEqual([true, true, false, false]);
  });

  it('gives the values of = and of plain-word alternatives as exact values, never those that match empty', () => {
    const predicate = tagPredicate([
      newMatcher('host', '=~', 'a|b\\.c|a'),
      newMatcher('host', '=', 'a'),
      newMatcher('dc', '=~', 'eu.*'),
      newMatcher('rack', '=', ''),
      newMatcher('zone', '=~', 'x|'),
    ]);
    expect([...predicate.exact!]).toEqual([['host', ['a']]]);
  });
});

describe('labelsOf', () => {
  it('is __name__ and the tags, sorted, without empty values or a tag named __name__', () => {
    expect(labelsOf('system.cpu', { 'host.name': 'x', a: '', __name__: 'other', b: '1' })).toEqual([
      { name: '__name__', value: 'system.cpu' },
      { name: 'b', value: '1' },
      { name: 'host.name', value: 'x' },
    ]);
  });
});
