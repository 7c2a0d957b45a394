import { describe, expect, it } from 'vitest';
import { coverageEntries, parseTagIndexConfig, TagIndexCoverage, tagIndexRows } from './tag-index.js';

const config = (json: unknown) => parseTagIndexConfig(json);

describe('tagIndexRows', () => {
  it("writes the reference's worked examples: only the indexed tags are paired and hashed", () => {
    const key = { metric: 'cpu', tags: { host: 'a', dc: 'x' } };
    expect(tagIndexRows(config({ cpu: ['host'] }), key)).toEqual({ pairs: ['host=a'], hash: -1147264974 });
    expect(tagIndexRows(config({ cpu: [] }), key)).toEqual({ pairs: ['dc=x', 'host=a'], hash: 1750428808 });
    expect(tagIndexRows(config({ cpu: ['*'] }), key)).toEqual({ pairs: ['dc=x', 'host=a'], hash: 1750428808 });
    expect(tagIndexRows(config(['*']), key)).toEqual({ pairs: ['dc=x', 'host=a'], hash: 1750428808 });
    expect(tagIndexRows(config(['cpu']), key)).toEqual({ pairs: ['dc=x', 'host=a'], hash: 1750428808 });
  });

  it('writes nothing for a metric that is not indexed, or a series without an indexed tag', () => {
    expect(tagIndexRows(config({ mem: ['host'] }), { metric: 'cpu', tags: { host: 'a' } })).toBeUndefined();
    expect(tagIndexRows(config({ cpu: ['host'] }), { metric: 'cpu', tags: { dc: 'x' } })).toBeUndefined();
  });

  it("pairs names and values unescaped, as KairosDB's single_tag_pair", () => {
    expect(tagIndexRows(config(['*']), { metric: 'm', tags: { 'a=b': 'c' } })!.pairs).toEqual(['a=b=c']);
    expect(tagIndexRows(config(['*']), { metric: 'm', tags: { a: 'b=c' } })!.pairs).toEqual(['a=b=c']);
  });
});

describe('TagIndexCoverage', () => {
  it('names the tags whose entry is in force from before the row time', () => {
    const cfg = config({ cpu: ['host', 'dc'], mem: [] });
    expect(coverageEntries(cfg)).toEqual(['["cpu","dc"]', '["cpu","host"]', '["mem"]']);
    const coverage = new TagIndexCoverage(
      cfg,
      new Map([
        ['["cpu","dc"]', 2000],
        ['["cpu","host"]', Number.MIN_SAFE_INTEGER],
        ['["mem"]', 1000],
      ]),
    );
    expect(coverage.indexedTags('cpu', 1000)).toEqual(new Set(['host']));
    expect(coverage.indexedTags('cpu', 2000)).toEqual(new Set(['host', 'dc']));
    expect(coverage.indexedTags('mem', 0)).toEqual(new Set());
    expect(coverage.indexedTags('mem', 1000)).toBe('all');
    expect(coverage.indexedTags('disk', 1000)).toEqual(new Set());
    const every = new TagIndexCoverage(config(['*']), new Map([['["*"]', 5000]]));
    expect(every.indexedTags('anything', 4999)).toEqual(new Set());
    expect(every.indexedTags('anything', 5000)).toBe('all');
    expect(TagIndexCoverage.complete(cfg).indexedTags('cpu', -1e15)).toEqual(new Set(['host', 'dc']));
  });
});
