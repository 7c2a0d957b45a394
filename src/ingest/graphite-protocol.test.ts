/** Graphite's plaintext lines: carbon's syntax, Graphite 1.1's tags and kairos-carbon's host-tag rule. */
import { describe, expect, it } from 'vitest';
import { parseGraphiteLine } from './graphite-protocol.js';

const NOW = 1_700_000_123_456;
const whole = { hostTagPosition: 0 };
const parse = (line: string, mapping = whole) => parseGraphiteLine(line, NOW, mapping);

describe('parseGraphiteLine', () => {
  it('reads path value timestamp, the timestamp in seconds, the whole path as the metric', () => {
    expect(parse('servers.web1.cpu.load 0.5 1700000000')).toEqual({
      point: {
        metric: 'servers.web1.cpu.load',
        tags: {},
        type: 'double',
        timestampMs: 1_700_000_000_000,
        value: 0.5,
        ttlSeconds: 0,
      },
    });
  });

  it('takes -1 or no timestamp as now, and a fraction of a second to the millisecond', () => {
    expect(parse('a.b 1 -1')).toMatchObject({ point: { timestampMs: NOW } });
    expect(parse('a.b 1')).toMatchObject({ point: { timestampMs: NOW } });
    expect(parse('a.b 1 1700000000.25')).toMatchObject({ point: { timestampMs: 1_700_000_000_250 } });
    expect(parse('a.b 1 soon')).toEqual({
      reject: 'malformed',
      message: 'timestamp must be a number of seconds, or -1 for now (got soon)',
    });
  });

  it('types a whole number long and any other float double; refuses NaN and infinities', () => {
    expect(parse('a 42 1')).toMatchObject({ point: { type: 'long', value: 42 } });
    expect(parse('a 12345678901234567890 1')).toMatchObject({ point: { type: 'long', value: 12345678901234567890n } });
    expect(parse('a 1e3 1')).toMatchObject({ point: { type: 'double', value: 1000 } });
    expect(parse('a -.5 1')).toMatchObject({ point: { type: 'double', value: -0.5 } });
    expect(parse('a nan 1')).toEqual({ reject: 'malformed', message: 'value must be a finite number (got nan)' });
    expect(parse('a -Infinity 1')).toEqual({
      reject: 'malformed',
      message: 'value must be a finite number (got -Infinity)',
    });
    expect(parse('a 0x10 1')).toEqual({ reject: 'malformed', message: 'value must be a number (got 0x10)' });
  });

  it("reads Graphite 1.1's tags: name;tag=value, the value may hold '=', the last of a name wins", () => {
    expect(parse('disk.used;host=web1;mount=/var;opt=a=b;host=web2 7 1')).toMatchObject({
      point: { metric: 'disk.used', tags: { host: 'web2', mount: '/var', opt: 'a=b' } },
    });
    expect(parse('disk;host 7 1')).toEqual({
      reject: 'malformed',
      message: 'a tag must be \'name=value\', both not empty (got "host")',
    });
    expect(parse('disk;host= 7 1')).toEqual({
      reject: 'malformed',
      message: 'a tag must be \'name=value\', both not empty (got "host=")',
    });
    expect(parse('disk; 7 1')).toEqual({
      reject: 'malformed',
      message: 'a tag must be \'name=value\', both not empty (got "")',
    });
    expect(parse('disk;a!b=c 7 1')).toEqual({
      reject: 'malformed',
      message: "a tag name must not contain '!' or '^' (got a!b)",
    });
    expect(parse('disk;a=~c 7 1')).toEqual({
      reject: 'malformed',
      message: "a tag value must not start with '~' (got ~c)",
    });
    expect(parse(';a=b 7 1')).toEqual({ reject: 'malformed', message: 'the path must not be empty (got ;a=b)' });
  });

  it("takes the host from a position of the path as kairos-carbon's HostTagParser does", () => {
    const carbon = { hostTagPosition: 2 };
    expect(parse('servers.web1.cpu.load 1 1', carbon)).toMatchObject({
      point: { metric: 'servers.cpu.load', tags: { host: 'web1' } },
    });
    expect(parse('a.b.c 1 1', carbon)).toMatchObject({ point: { metric: 'a.c', tags: { host: 'b' } } });
    expect(parse('a.b 1 1', carbon)).toEqual({
      reject: 'malformed',
      message: 'the path must have more than 2 parts to take the host from (got a.b)',
    });
    expect(parse('web1.cpu 1 1', { hostTagPosition: 1 })).toMatchObject({
      point: { metric: 'cpu', tags: { host: 'web1' } },
    });
    // A tag on the line wins over the path's.
    expect(parse('a.b.c;host=z;dc=x 1 1', carbon)).toMatchObject({
      point: { metric: 'a.c', tags: { host: 'z', dc: 'x' } },
    });
  });

  it('refuses lines of too few or too many words and passes over empty ones', () => {
    expect(parse('a.b')).toEqual({
      reject: 'malformed',
      message: "a line must be 'path value [timestamp]' (got 1 word)",
    });
    expect(parse('a.b 1 2 3')).toEqual({
      reject: 'malformed',
      message: "a line must be 'path value [timestamp]' (got 4 words)",
    });
    expect(parse('  ')).toBeUndefined();
    expect(parse('a.b\t1\t1700000000')).toMatchObject({ point: { metric: 'a.b', value: 1 } });
  });
});
