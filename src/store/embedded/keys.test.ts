/** The embedded store's key limits, derived from its key layouts: the longest strings make keys of exactly LMDB's size. */
import { describe, expect, it } from 'vitest';
import { encodeRowKey } from '../format/index.js';
import type { RowKey } from '../store.js';
import {
  blockKey,
  embeddedKeyLimits,
  metricNamesRange,
  partitionEnd,
  partitionPrefix,
  rowKeysKey,
  rowTimeKeyAfter,
  stringIndexKey,
  METRIC_NAMES,
} from './keys.js';

describe('embeddedKeyLimits', () => {
  it("gives 1964 bytes of metric name and 1971 of row key at lmdb-js's 1978-byte keys, and follows another key size", () => {
    expect(embeddedKeyLimits(1978)).toEqual({
      store: "the embedded store's",
      maxMetricBytes: 1964,
      maxRowKeyBytes: 1971,
    });
    expect(embeddedKeyLimits(511)).toEqual({ store: "the embedded store's", maxMetricBytes: 497, maxRowKeyBytes: 504 });
  });

  it('fills the longest key of each kind to exactly 1978 bytes, and every other key stays within it', () => {
    const metric = 'é'.repeat(982);
    expect([
      metricNamesRange(metric).end.length,
      stringIndexKey(METRIC_NAMES, metric).length,
      rowTimeKeyAfter(metric, -1).length,
    ]).toEqual([1978, 1977, 1974]);
    // A row key of exactly 1971 bytes: metric, 11 bytes, kairos_long, and the tag string h=<value>:.
    const key: RowKey = { metric: 'm', rowTime: 0, dataType: 'kairos_long', tags: { h: 'v'.repeat(1971 - 26) } };
    const prefix = partitionPrefix(encodeRowKey(key));
    expect([
      encodeRowKey(key).length,
      partitionEnd(prefix).length,
      blockKey(prefix, 0).length,
      rowKeysKey(key).length,
    ]).toEqual([1971, 1978, 1977, 1970]);
  });
});
