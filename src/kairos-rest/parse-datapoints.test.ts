/** A KairosDB ingest body's tags: interned by their text, so a client's series are validated and keyed once. */
import { describe, expect, it } from 'vitest';
import { parseJson } from '../kairos-json/json-text.js';
import { embeddedKeyLimits } from '../store/embedded/keys.js';
import { parseDatapoints } from './parse-datapoints.js';

const limits = { maxPoints: 1000, keys: embeddedKeyLimits(1978) };

/** The tags of the one series a body of one metric object with `tags` (JSON text) makes. */
function tagsOf(tags: string, name = 'interned.rest'): Readonly<Record<string, string>> {
  const body = `[{"name": "${name}", "tags": ${tags}, "datapoints": [[1767225600000, 1.5]]}]`;
  const { series } = parseDatapoints(parseJson(body, { exactNumbers: true }), limits);
  expect(series).toHaveLength(1);
  return series[0]!.tags;
}

describe('parseDatapoints tags', () => {
  it('are the same frozen object for the same tags in every request, and another for other tags', () => {
    const first = tagsOf('{"host": "a", "dc": "eu"}');
    expect(first).toEqual({ dc: 'eu', host: 'a' });
    expect(Object.isFrozen(first)).toBe(true);
    expect(tagsOf('{"host": "a", "dc": "eu"}')).toBe(first);
    expect(tagsOf('{"host": "a", "dc": "eu"}', 'another.metric')).toBe(first);
    expect(tagsOf('{"host": "b", "dc": "eu"}')).toEqual({ dc: 'eu', host: 'b' });
    expect(tagsOf('{"host": "b", "dc": "eu"}')).not.toBe(first);
  });

  it('are told apart where names and values would run together without their lengths', () => {
    expect(tagsOf('{"ab": "c"}')).toEqual({ ab: 'c' });
    expect(tagsOf('{"a": "bc"}')).toEqual({ a: 'bc' });
    expect(tagsOf('{"a": "b", "c": "d"}')).toEqual({ a: 'b', c: 'd' });
    expect(tagsOf('{"a": "b\\u0001\\u0001c\\u0001d"}')).toEqual({ a: 'b\u0001\u0001c\u0001d' });
  });

  it('take numbers and booleans as their text, as Gson does, the same as that text sent as a string', () => {
    const sent = tagsOf('{"port": 8080, "tls": true, "ratio": 1.50}');
    expect(sent).toEqual({ port: '8080', ratio: '1.50', tls: 'true' });
    expect(tagsOf('{"port": "8080", "tls": "true", "ratio": "1.50"}')).toBe(sent);
  });

  it('are refused by name in every request when a value is empty or not a string, interned or not', () => {
    for (let request = 0; request < 2; request++) {
      expect(() => tagsOf('{"host": "a", "dc": ""}')).toThrow('metric[0].tags.dc must not be empty (got "")');
      expect(() => tagsOf('{"host": "a", "dc": {"zone": 1}}')).toThrow('metric[0].tags.dc must be a string');
      expect(() => tagsOf('{"host": "a", "dc": null}')).toThrow('metric[0].tags.dc must be a string (got null)');
    }
  });
});
