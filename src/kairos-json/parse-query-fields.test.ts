/**
 * The field names the KairosDB query parser gives each part of the query model, so that errors found later (the
 * engine compiles parameters when the query runs) name the JSON path the client sent.
 */
import { describe, expect, it } from 'vitest';
import { embeddedKeyLimits } from '../store/embedded/keys.js';
import { parseKairosQuery } from './parse-query.js';

const NOW = Date.UTC(2024, 2, 31, 12, 0, 0, 500);
const LIMITS = embeddedKeyLimits(1978);

describe("parseKairosQuery's field names", () => {
  it('names each part of the model as the JSON names it, under where the query sits', () => {
    const [query] = parseKairosQuery(
      {
        start_absolute: 0,
        metrics: [
          { name: 'm' },
          {
            name: 'n',
            tags: { host: ['a', 'regex:b.*'] },
            aggregators: [{ name: 'sum' }, { name: 'save_as', metric_name: 'x', tags: { dc: 'eu' } }],
            group_by: [{ name: 'time' }],
          },
        ],
      },
      NOW,
      LIMITS,
      'rollups[2].query',
    ).slice(1);
    expect(query!.fields!.param('time_zone')).toBe('rollups[2].query.metric[1].time_zone');
    expect(query!.fields!.param('metric')).toBe('rollups[2].query.metric[1].name');
    expect(query!.tags[0]!.fields!.param('regex')).toBe('rollups[2].query.metric[1].tags.host');
    expect(query!.aggregators[1]!.fields!.path).toBe('rollups[2].query.metric[1].aggregators[1]');
    expect(query!.aggregators[1]!.fields!.param('tags', 'dc')).toBe(
      'rollups[2].query.metric[1].aggregators[1].tags.dc',
    );
    expect(query!.groupBy[0]!.fields!.param('range_size', 'unit')).toBe(
      'rollups[2].query.metric[1].group_by[0].range_size.unit',
    );
  });

  it('names a bad regex value by its place in the tag list', () => {
    expect(() =>
      parseKairosQuery({ start_absolute: 0, metrics: [{ name: 'm', tags: { host: ['a', 'regex:(b'] } }] }, NOW, LIMITS),
    ).toThrow(/^query\.metric\[0\]\.tags\.host\[1\] is not a valid regular expression/);
  });
});
