/**
 * InfluxDB's line protocol: every field type, the escaping rules of each part, precisions, comments and blank lines,
 * and each bad line reported by number, text and reason while the lines around it still parse.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { embeddedKeyLimits } from '../store/embedded/keys.js';
import { toPartitionWrites } from '../store/partition-writes.js';
import { parseLineProtocol } from './line-protocol.js';
import { lineProtocolBatch } from './line-protocol-batch.js';
import { partialWrite } from './line-protocol-route.js';

describe('parseLineProtocol', () => {
  it('reads every field type, tags and a timestamp', () => {
    const { errors } = parseLineProtocol(
      'm u=18446744073709551615u\nm u=18446744073709551616u\nm i=9223372036854775808i\nm,t=a v=1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27',
      'ns',
    );
    expect(errors).toEqual([
      {
        line: 1,
        text: 'm u=18446744073709551615u',
        reason: 'field "u": unsigned 18446744073709551615u is over 2^63-1, the largest long KairosDB stores',
      },
      {
        line: 2,
        text: 'm u=18446744073709551616u',
        reason: 'field "u": unsigned 18446744073709551616u is out of the range of an unsigned 64-bit integer',
      },
      {
        line: 3,
        text: 'm i=9223372036854775808i',
        reason: 'field "i": integer 9223372036854775808i is out of the range of a signed 64-bit integer',
      },
      {
        line: 4,
        text: 'm,t=a v=1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22…',
        reason: 'unexpected text at column 13',
      },
    ]);
    const ok = parseLineProtocol(
      'cpu,host=a,dc=x f=1.5,e=-2e3,i=-3i,u=9223372036854775807u,s="hi",t=true,F=False 1700000000123456789',
      'ns',
    );
    expect(ok).toEqual({
      points: [
        {
          line: 1,
          measurement: 'cpu',
          series: 'cpu,host=a,dc=x',
          tags: { host: 'a', dc: 'x' },
          fields: [
            ['f', { type: 'double', value: 1.5 }],
            ['e', { type: 'double', value: -2000 }],
            ['i', { type: 'long', value: -3 }],
            ['u', { type: 'long', value: 9223372036854775807n }],
            ['s', { type: 'string', value: 'hi' }],
            ['t', { type: 'long', value: 1, boolean: true }],
            ['F', { type: 'long', value: 0, boolean: true }],
          ],
          timestampMs: 1700000000123,
        },
      ],
      errors: [],
    });
  });

  it('unescapes commas, spaces, equals signs and backslashes in names, and quotes and backslashes in strings', () => {
    const text = String.raw`my\ meas\,ure,t\ k\=1=v\,a\ l\=ue,b=c\\d f\,i\ e\=ld="say \"hi\" C:\\dir\x",g=1 5`;
    const { points, errors } = parseLineProtocol(text, 'ms');
    expect(errors).toEqual([]);
    expect(points).toEqual([
      {
        line: 1,
        measurement: 'my meas,ure',
        series: String.raw`my\ meas\,ure,t\ k\=1=v\,a\ l\=ue,b=c\\d`,
        tags: { 't k=1': 'v,a l=ue', b: 'c\\d' },
        fields: [
          ['f,i e=ld', { type: 'string', value: 'say "hi" C:\\dir\\x' }],
          ['g', { type: 'double', value: 1 }],
        ],
        timestampMs: 5,
      },
    ]);
  });

  it('keeps `\\=` in a measurement as it is, and the last value of a field given twice', () => {
    const { points } = parseLineProtocol(String.raw`a\=b v=1,w=2,v=3 1`, 'ms');
    expect(points.map((p) => [p.measurement, p.fields])).toEqual([
      [
        'a\\=b',
        [
          ['w', { type: 'double', value: 2 }],
          ['v', { type: 'double', value: 3 }],
        ],
      ],
    ]);
  });

  it('keeps the last value of a field given twice in a line of many fields, in the place of its last', () => {
    const many = Array.from({ length: 20 }, (_, k) => `f${k}=${k}`).join(',');
    const { points } = parseLineProtocol(`m ${many},f3=100,f19=200 1`, 'ms');
    const expected = [0, 1, 2, ...Array.from({ length: 15 }, (_, k) => k + 4)].map((k) => [`f${k}`, k]);
    expect(points[0]!.fields.map(([key, field]) => [key, field.value])).toEqual([
      ...expected,
      ['f3', 100],
      ['f19', 200],
    ]);
  });

  it('takes each precision, a missing timestamp, comments, blank lines, CRLF and a string across lines', () => {
    const text = '# a comment\n\nm v=1 2\r\nm v=2\nm s="two\nlines" -1\n';
    expect(parseLineProtocol(text, 's').points.map((p) => [p.line, p.timestampMs])).toEqual([
      [3, 2000],
      [4, undefined],
      [5, -1000],
    ]);
    expect(parseLineProtocol(text, 's').points[2]!.fields).toEqual([['s', { type: 'string', value: 'two\nlines' }]]);
    const at = (precision: Parameters<typeof parseLineProtocol>[1], raw: string) =>
      parseLineProtocol(`m v=1 ${raw}`, precision).points[0]!.timestampMs;
    expect([at('ns', '-1'), at('us', '1999'), at('ms', '7'), at('m', '2'), at('h', '1')]).toEqual([
      -1, 1, 7, 120_000, 3_600_000,
    ]);
  });

  it('reports each bad line by number, text and reason, and parses the lines after it', () => {
    const text = [
      'cpu',
      'cpu,host=a',
      'cpu,host= v=1',
      'cpu,=a v=1',
      'cpu v=',
      'cpu v=1,v2',
      'cpu v=abc',
      'cpu v="open',
      'x v=1',
    ].join('\n');
    const second = 'cpu v=1 12ab\ncpu,h=a,h=b v=1\ncpu v=1 1 extra\ncpu v=1\n,h=a v=1\ncpu v=1.5i';
    expect(parseLineProtocol(second, 'ns').errors).toEqual([
      { line: 1, text: 'cpu v=1 12ab', reason: 'invalid timestamp "12ab"' },
      { line: 2, text: 'cpu,h=a,h=b v=1', reason: 'tag key "h" is repeated' },
      { line: 3, text: 'cpu v=1 1 extra', reason: 'unexpected text at column 11' },
      { line: 5, text: ',h=a v=1', reason: 'missing measurement' },
      { line: 6, text: 'cpu v=1.5i', reason: 'field "v": invalid value "1.5i"' },
    ]);
    const { points, errors } = parseLineProtocol(text, 'ns');
    expect(errors).toEqual([
      { line: 1, text: 'cpu', reason: 'missing fields' },
      { line: 2, text: 'cpu,host=a', reason: 'missing fields' },
      { line: 3, text: 'cpu,host= v=1', reason: 'missing tag value of tag key "host"' },
      { line: 4, text: 'cpu,=a v=1', reason: 'missing tag key' },
      { line: 5, text: 'cpu v=', reason: 'missing field value of field key "v"' },
      { line: 6, text: 'cpu v=1,v2', reason: 'missing field value of field key "v2"' },
      { line: 7, text: 'cpu v=abc', reason: 'field "v": invalid value "abc"' },
      { line: 8, text: 'cpu v="open\nx v=1', reason: 'field "v": unterminated string' },
    ]);
    expect(points).toEqual([]);
  });
});

describe('a series read once', () => {
  it('gives a line whose measurement and tags were read before what they read as, the same frozen object', () => {
    const first = parseLineProtocol('swap,host=q,dc=1 used=1 1', 'ms').points[0]!;
    const again = parseLineProtocol('swap,host=q,dc=1 free=2i 2\nswap,host=q,dc=1 used=3', 'ms').points;
    expect(again.map((p) => p.tags)).toEqual([first.tags, first.tags]);
    expect(again[1]!.tags).toBe(first.tags);
    expect(Object.isFrozen(first.tags)).toBe(true);
    expect([again[0]!.measurement, again[0]!.series]).toEqual(['swap', 'swap,host=q,dc=1']);
  });

  it('refuses a bad measurement or tag set in every request', () => {
    for (let request = 0; request < 2; request++)
      expect(parseLineProtocol('net,if=a,if=b rx=1 1', 'ms').errors.map((e) => e.reason)).toEqual([
        'tag key "if" is repeated',
      ]);
  });

  it('reads any line the same the second time as the first', () => {
    const part = fc.stringMatching(/^[ab\\ ,=\té]{0,6}$/);
    const line = fc
      .tuple(part, fc.array(fc.tuple(part, part), { maxLength: 3 }), fc.constantFrom(' v=1 1', ' v=2,w="x" 2', ''))
      .map(([measurement, tags, rest]) => `m${measurement}${tags.map(([k, v]) => `,k${k}=v${v}`).join('')}${rest}`);
    fc.assert(
      fc.property(line, (text) => {
        const first = parseLineProtocol(text, 'ms');
        const second = parseLineProtocol(text, 'ms');
        expect(second).toEqual(first);
        // A line read whole interns its series: the second read took it.
        if (first.errors.length === 0 && first.points.length > 0)
          expect(second.points[0]!.tags).toBe(first.points[0]!.tags);
      }),
      { numRuns: 500 },
    );
  });
});

describe('lineProtocolBatch', () => {
  const limits = { maxPoints: 100, keys: embeddedKeyLimits(1978) };

  it('makes one series per field named measurement.field, merging lines of the same series', () => {
    const { points } = parseLineProtocol('cpu,host=a idle=1,user=2i 1000\ncpu,host=a idle=3 2000\nmem free="x"', 'ms');
    const result = lineProtocolBatch(points, { nowMs: 5000, separator: '.', limits });
    expect(result.rejected).toEqual([]);
    expect([result.lines, result.points]).toEqual([3, 4]);
    expect(result.batch.series.map((s) => ({ ...s, tags: { ...s.tags } }))).toEqual([
      {
        metric: 'cpu.idle',
        tags: { host: 'a' },
        type: 'double',
        ttlSeconds: 0,
        timestamps: [1000, 2000],
        values: [1, 3],
      },
      { metric: 'cpu.user', tags: { host: 'a' }, type: 'long', ttlSeconds: 0, timestamps: [1000], values: [2] },
      { metric: 'mem.free', tags: {}, type: 'string', ttlSeconds: 0, timestamps: [5000], values: ['x'] },
    ]);
  });

  it('rejects a line that fails validation whole, naming its part, and keeps the others', () => {
    const { points } = parseLineProtocol('a v=1 9000000000000000\nb v="" 1\nc v=2 3', 'ms');
    const result = lineProtocolBatch(points, { nowMs: 0, separator: '_', limits });
    expect(result.rejected).toEqual([
      {
        line: 1,
        text: '',
        reason:
          'line 1: timestamp must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got 9000000000000000)',
      },
      { line: 2, text: '', reason: 'line 2: field "v" must not be empty (got "")' },
    ]);
    expect(result.batch.series.map((s) => s.metric)).toEqual(['c_v']);
    expect(partialWrite(result.rejected, result.lines)).toBe(
      'partial write: 2 lines rejected, 1 line written: line 1: timestamp must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got 9000000000000000); line 2: field "v" must not be empty (got "")',
    );
  });

  it('gives a series the same frozen tags in every request that sends its measurement and tags', () => {
    const tagsOf = (body: string) =>
      lineProtocolBatch(parseLineProtocol(body, 'ms').points, { nowMs: 0, separator: '.', limits }).batch.series.map(
        (s) => s.tags,
      );
    const [first] = tagsOf('disk,host=b,path=/ used=1 1');
    expect(Object.isFrozen(first)).toBe(true);
    expect(tagsOf('disk,host=b,path=/ used=2,free=3 2')).toEqual([first, first]);
    expect(tagsOf('disk,host=b,path=/ used=2,free=3 2')[1]).toBe(first);
    expect(tagsOf('disk,path=/,host=b used=1 1')[0]).not.toBe(first);
  });

  it('writes lines of one series in another tag order into one partition', () => {
    const { points } = parseLineProtocol('cpu,a=1,b=2 v=1 1000\ncpu,b=2,a=1 v=2 2000', 'ms');
    const { batch } = lineProtocolBatch(points, { nowMs: 0, separator: '.', limits });
    const { partitions } = toPartitionWrites({ unit: 'MILLISECONDS', width: 3_600_000 }, batch);
    expect(
      partitions.map((p) => [p.key.metric, { ...p.key.tags }, p.columns.length, p.values.map((v) => v.length)]),
    ).toEqual([['cpu.v', { a: '1', b: '2' }, 2, [8, 8]]]);
  });

  it('merges lines of a series of many fields, in any field order, into one series per field and type', () => {
    const keys = Array.from({ length: 40 }, (_, k) => `f${k}`);
    const line = (order: string[], value: (key: string) => string, ts: number) =>
      `wide,host=a ${order.map((key) => `${key}=${value(key)}`).join(',')} ${ts}`;
    const body = [
      line(keys, (key) => key.slice(1), 1000),
      line([...keys].reverse(), (key) => key.slice(1), 2000),
      // The same field keys as integers: series of another type.
      line(keys.slice(0, 20), (key) => `${key.slice(1)}i`, 3000),
    ].join('\n');
    const { points } = parseLineProtocol(body, 'ms');
    const { batch } = lineProtocolBatch(points, { nowMs: 0, separator: '.', limits: { ...limits, maxPoints: 200 } });
    expect(batch.series).toHaveLength(60);
    const byName = new Map(batch.series.map((s) => [`${s.metric}:${s.type}`, [s.timestamps, s.values]]));
    expect(byName.get('wide.f7:double')).toEqual([
      [1000, 2000],
      [7, 7],
    ]);
    expect(byName.get('wide.f39:double')).toEqual([
      [1000, 2000],
      [39, 39],
    ]);
    expect(byName.get('wide.f19:long')).toEqual([[3000], [19]]);
  });

  it('refuses a body over MAX_WRITE_POINTS whole', () => {
    const { points } = parseLineProtocol('a v=1,w=2\nb v=1', 'ms');
    expect(() => lineProtocolBatch(points, { nowMs: 0, separator: '.', limits: { ...limits, maxPoints: 2 } })).toThrow(
      'body must hold at most 2 points in one batch (got 3)',
    );
  });
});
