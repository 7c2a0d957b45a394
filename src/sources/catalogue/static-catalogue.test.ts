/** The static catalogue: the listed series' partitions in every period of a range, with what the layout reads each by. */
import { describe, expect, it } from 'vitest';
import { listedTags, seriesOf } from '../heroic/heroic-source.js';
import type { HeroicSeries } from '../heroic/key-bytes.js';
import { NG_WIDTH_MS } from '../heroic/partitions.js';
import { encodeKey } from '../heroic/row-key.js';
import type { Tags } from '../../model/series.js';
import { StaticCatalogue } from './static-catalogue.js';

const series = (key: string, tags: Record<string, string>, resource: Record<string, string> = {}): HeroicSeries => ({
  key,
  tags,
  resource,
});
const B = 1_599_875_317_015;
const cpuA = series('cpu', { host: 'a' });
const cpuB = series('cpu', { host: 'b' }, { pod: 'p-1' });
const mem = series('mem', { host: 'a' });

const tagsOf = (found: { group: string; tags: Tags; base: number }[]) =>
  found.map((p) => [p.group, { ...p.tags }, p.base]);

describe('StaticCatalogue', () => {
  it('lists every listed series in every period of the range, with what the layout reads it by', () => {
    const c = new StaticCatalogue(
      [cpuA, cpuB, mem].map((s) => ({ group: s.key, tags: listedTags(s) })),
      (from, to) => Array.from({ length: Math.floor((to - from) / NG_WIDTH_MS) + 1 }, (_, i) => from + i * NG_WIDTH_MS),
      (group, tags, base) => encodeKey('ng', seriesOf({ metric: group, tags }), base),
    );
    expect(c.groups('')).toEqual(['cpu', 'mem']);
    const found = c.partitions('cpu', B, B + NG_WIDTH_MS);
    expect(tagsOf(found)).toEqual([
      ['cpu', { host: 'a' }, B],
      ['cpu', { host: 'b', 'resource:pod': 'p-1' }, B],
      ['cpu', { host: 'a' }, B + NG_WIDTH_MS],
      ['cpu', { host: 'b', 'resource:pod': 'p-1' }, B + NG_WIDTH_MS],
    ]);
    expect(found[3]!.stored.equals(encodeKey('ng', cpuB, B + NG_WIDTH_MS))).toBe(true);
    expect(c.status()).toMatchObject({ kind: 'static', partitions: 3 });
  });
});
