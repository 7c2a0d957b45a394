/**
 * The one check of names and series against a store's key limits: sizes measured as the stores encode their keys
 * (cross-checked against the row key codec and the Cassandra driver's map encoding), and refusals that name the
 * field, the size and the limit.
 */
import cassandra from 'cassandra-driver';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyChar } from '../../test/support/bytes.js';
import { InputError } from '../model/errors.js';
import { CASSANDRA_KEY_LIMITS } from '../store/cassandra/key-limits.js';
import { embeddedKeyLimits } from '../store/embedded/keys.js';
import { encodeRowKey, encodeTagString } from '../store/format/index.js';
import {
  checkMetricName,
  checkMetricPrefix,
  checkSeriesKeys,
  rowKeyBytes,
  tagMapBytes,
  utf8Bytes,
} from './key-limits.js';

const EMBEDDED = embeddedKeyLimits(1978);
const text = fc.string({
  unit: fc.oneof(fc.constantFrom(':', '=', '\uD800', '\uDC00'), anyChar),
  minLength: 1,
  maxLength: 8,
});
const tagMaps = fc.dictionary(text, text, { minKeys: 1, maxKeys: 5 });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('sizes', () => {
  it('count a typed row key as encodeRowKey writes it, and never less (a lone surrogate: 3 bytes counted, 1 written)', () => {
    fc.assert(
      fc.property(
        text,
        tagMaps,
        fc.constantFrom('kairos_long', 'kairos_double', 'kairos_string'),
        (metric, tags, dataType) => {
          const counted = rowKeyBytes(utf8Bytes(metric), utf8Bytes(dataType), utf8Bytes(encodeTagString(tags)));
          // A row key ends its metric at U+0000 (validation refuses it); 'x' takes its one byte.
          const written = encodeRowKey({ metric: metric.replaceAll('\u0000', 'x'), rowTime: 0, dataType, tags }).length;
          const lone = [metric, ...Object.keys(tags), ...Object.values(tags)].some((s) => LONE_SURROGATE.test(s));
          expect(lone ? counted >= written : counted === written).toBe(true);
        },
      ),
    );
  });

  it('count a tag map as the Cassandra driver serializes a frozen<map<text, text>>', () => {
    // The driver exports its Encoder without typings.
    const { Encoder } = cassandra as unknown as {
      Encoder: new (version: number, options: object) => { encode(value: unknown, type: object): Buffer };
    };
    const encoder = new Encoder(4, { encoding: { map: Map } });
    const { dataTypes } = cassandra.types;
    const mapType = { code: dataTypes.map, info: [{ code: dataTypes.varchar }, { code: dataTypes.varchar }] };
    fc.assert(
      fc.property(tagMaps, (tags) => {
        expect(tagMapBytes(tags)).toBe(encoder.encode(new Map(Object.entries(tags)), mapType).length);
      }),
    );
  });
});

describe('checkMetricName and checkMetricPrefix', () => {
  it('take a name of exactly the limit in UTF-8 bytes, and refuse one byte more, naming the field and both sizes', () => {
    expect(() => checkMetricName(EMBEDDED, 'é'.repeat(982), 'metric')).not.toThrow();
    const over = `${'é'.repeat(982)}a`;
    expect(() => checkMetricName(EMBEDDED, over, 'metric[0].name')).toThrow(
      new InputError(
        'metric[0].name',
        over,
        "must be at most 1964 bytes in UTF-8, the longest metric name the embedded store's keys hold (it is 1965 bytes)",
      ),
    );
    expect(() => checkMetricPrefix(CASSANDRA_KEY_LIMITS, 'p'.repeat(65_508), 'prefix')).toThrow(
      "prefix must be at most 65507 bytes in UTF-8, the longest metric name the Cassandra store's keys hold (it is 65508 bytes)",
    );
  });
});

describe('checkSeriesKeys', () => {
  /** The same tags plain, and frozen twice over (an interned series: its sizes are counted once, then found). */
  const asSent = (make: () => Record<string, string>) => {
    const frozen = Object.freeze(make());
    return [make(), frozen, frozen];
  };

  it('measures the row key with the series data type, so a double takes 2 bytes more than a long', () => {
    // m (1) + 11 + kairos_long (11) + "h=" + value + ":" = value + 26.
    const value = 'v'.repeat(1971 - 26);
    for (const tags of asSent(() => ({ h: value }))) {
      expect(() => checkSeriesKeys(EMBEDDED, 'm', 'kairos_long', tags, 'tags')).not.toThrow();
      expect(() => checkSeriesKeys(EMBEDDED, 'm', 'kairos_double', tags, 'series[2].tags')).toThrow(
        new InputError(
          'series[2].tags',
          { h: value },
          "make a row key of 1973 bytes with the metric name, over the 1971 bytes the embedded store's keys hold",
        ),
      );
    }
  });

  it("refuses a tag map over Cassandra's row_keys clustering limit that the row key would still take", () => {
    // kairos_long (11) + count (4) + 13 per tag of a 4-byte name and a 1-byte value: 5040 tags make 65,535 bytes.
    const tags = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i.toString(36).padStart(3, '0')}`, 'v']));
    for (const fits of asSent(() => tags(5040)))
      expect(() => checkSeriesKeys(CASSANDRA_KEY_LIMITS, 'map', 'kairos_long', fits, 'tags')).not.toThrow();
    for (const over of asSent(() => tags(5041))) {
      expect(() => checkSeriesKeys(CASSANDRA_KEY_LIMITS, 'map', 'kairos_long', over, 'tags')).toThrow(
        "tags take 65548 bytes as a row_keys entry (data type and tag map), over the 65535 bytes the Cassandra store's keys hold",
      );
      // The embedded store has no such limit apart; its row key refuses these tags first.
      expect(() => checkSeriesKeys(EMBEDDED, 'map', 'kairos_long', over, 'tags')).toThrow(
        'tags make a row key of 35312 bytes with the metric name, over the 1971 bytes',
      );
    }
  });
});

describe("the stores' limits", () => {
  it("of Cassandra: row_keys' composite partition key spends 28 bytes around the metric; other keys hold 65,535", () => {
    expect(CASSANDRA_KEY_LIMITS).toEqual({
      store: "the Cassandra store's",
      maxMetricBytes: 65_507,
      maxRowKeyBytes: 65_535,
      maxRowKeysTagsBytes: 65_535,
    });
  });
});
