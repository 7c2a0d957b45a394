/** KairosDB 1.3's telnet lines, as its PutCommand, PutMillisecondCommand, PutStringCommand and WordSplitter read them. */
import { describe, expect, it } from 'vitest';
import { parseTelnetLine, splitWords, TELNET_VERSION } from './telnet-protocol.js';

describe('put', () => {
  it('takes a timestamp below 3,000,000,000 as seconds and above as milliseconds', () => {
    expect(parseTelnetLine('put cpu.load 1700000000 42 host=a')).toEqual({
      point: {
        metric: 'cpu.load',
        tags: { host: 'a' },
        type: 'long',
        timestampMs: 1_700_000_000_000,
        value: 42,
        ttlSeconds: 0,
      },
    });
    expect(parseTelnetLine('put cpu.load 2999999999 1 host=a')).toMatchObject({
      point: { timestampMs: 2_999_999_999_000 },
    });
    expect(parseTelnetLine('put cpu.load 3000000000 1 host=a')).toMatchObject({
      point: { timestampMs: 3_000_000_000 },
    });
    expect(parseTelnetLine('put cpu.load 1700000000123 1 host=a')).toMatchObject({
      point: { timestampMs: 1_700_000_000_123 },
    });
    // Negative times are below the bound too.
    expect(parseTelnetLine('put m -5 1 host=a')).toMatchObject({ point: { timestampMs: -5000 } });
  });

  it("types a value with a '.' double and one without long, beyond 2^53 exactly", () => {
    const value = (text: string) => parseTelnetLine(`putm m 1700000000000 ${text} h=a`);
    expect(value('1.5')).toMatchObject({ point: { type: 'double', value: 1.5 } });
    expect(value('-.5e3')).toMatchObject({ point: { type: 'double', value: -500 } });
    expect(value('2.')).toMatchObject({ point: { type: 'double', value: 2 } });
    expect(value('1.25d')).toMatchObject({ point: { type: 'double', value: 1.25 } });
    expect(value('-17')).toMatchObject({ point: { type: 'long', value: -17 } });
    expect(value('9223372036854775807')).toMatchObject({ point: { type: 'long', value: 9223372036854775807n } });
    expect(value('9223372036854775808')).toEqual({
      reject: 'malformed',
      message: "value must be an integer or a number with a '.' (got 9223372036854775808)",
    });
    expect(value('1e5')).toEqual({
      reject: 'malformed',
      message: "value must be an integer or a number with a '.' (got 1e5)",
    });
    expect(value('+5')).toEqual({
      reject: 'malformed',
      message: "value must be an integer or a number with a '.' (got +5)",
    });
    expect(value('1.2.3')).toEqual({ reject: 'malformed', message: 'value must be a number (got 1.2.3)' });
    expect(value('NaN')).toEqual({
      reject: 'malformed',
      message: "value must be an integer or a number with a '.' (got NaN)",
    });
  });

  it('reads putm in milliseconds whatever the size, and puts as a string value', () => {
    expect(parseTelnetLine('putm m 1000 1 h=a')).toMatchObject({ point: { timestampMs: 1000 } });
    expect(parseTelnetLine('puts status 1700000000000 up h=a')).toEqual({
      point: {
        metric: 'status',
        tags: { h: 'a' },
        type: 'string',
        timestampMs: 1_700_000_000_000,
        value: 'up',
        ttlSeconds: 0,
      },
    });
  });

  it('stores a line without tags under add=tag, as KairosDB does', () => {
    expect(parseTelnetLine('put m 1700000000 1')).toMatchObject({ point: { tags: { add: 'tag' } } });
  });

  it("reads tags with Java's split: a second '=' cuts the value, kairos_opt.ttl sets the TTL", () => {
    expect(parseTelnetLine('put m 1700000000 1 a=b=c kairos_opt.ttl=3600 z=1')).toMatchObject({
      point: { tags: { a: 'b', z: '1' }, ttlSeconds: 3600 },
    });
    expect(parseTelnetLine('put m 1700000000 1 a= ')).toEqual({
      reject: 'malformed',
      message: "tag[0] must be in the format 'name=value'. (got a=)",
    });
    expect(parseTelnetLine('put m 1700000000 1 h=a novalue')).toEqual({
      reject: 'malformed',
      message: "tag[1] must be in the format 'name=value'. (got novalue)",
    });
    expect(parseTelnetLine('put m 1700000000 1 =b')).toEqual({
      reject: 'malformed',
      message: 'tag[0].name may not be empty. (got =b)',
    });
    expect(parseTelnetLine('put m 1700000000 1 a==b')).toEqual({
      reject: 'malformed',
      message: 'tag[0].value may not be empty. (got a==b)',
    });
    expect(parseTelnetLine('put m 1700000000 1 kairos_opt.ttl=soon')).toEqual({
      reject: 'malformed',
      message: 'tag[kairos_opt.ttl] must be a number (got soon)',
    });
    expect(parseTelnetLine('put m 1700000000 1 h=a h=b')).toEqual({
      reject: 'malformed',
      message: 'tag h is given twice',
    });
  });

  it('refuses lines too short and timestamps that are not integers', () => {
    expect(parseTelnetLine('put m 1700000000')).toEqual({
      reject: 'malformed',
      message: 'put needs <metric> <timestamp> <value> [<name>=<value> ...] (got 2 words)',
    });
    expect(parseTelnetLine('put m 1.7e9 1 h=a')).toEqual({
      reject: 'malformed',
      message: 'timestamp must be an integer (got 1.7e9)',
    });
    expect(parseTelnetLine('put m 99999999999999999999 1 h=a')).toEqual({
      reject: 'malformed',
      message: 'timestamp must be an integer (got 99999999999999999999)',
    });
  });
});

describe('other commands', () => {
  it('answers version with the version REST gives, and passes over empty lines', () => {
    expect(parseTelnetLine('version')).toEqual({ reply: `${TELNET_VERSION}\n` });
    expect(TELNET_VERSION).toMatch(/^KairosDB 1\.3\.0-1 \(Kairograph \d+\.\d+\.\d+\)$/);
    expect(parseTelnetLine('')).toBeUndefined();
    expect(parseTelnetLine(' \t ')).toBeUndefined();
  });

  it('refuses a command KairosDB does not have', () => {
    expect(parseTelnetLine('help')).toEqual({ reject: 'unknown_command', message: 'unknown command: help' });
    expect(parseTelnetLine('PUT m 1 1 h=a')).toEqual({ reject: 'unknown_command', message: 'unknown command: PUT' });
  });
});

describe('splitWords (KairosDB WordSplitter)', () => {
  it('cuts at any character up to a space, and keeps a quoted word whole without its quotes', () => {
    expect(splitWords('put\tm  1\r')).toEqual(['put', 'm', '1']);
    expect(splitWords('put "a metric" 1 "h=x y"')).toEqual(['put', 'a metric', '1', 'h=x y']);
    expect(splitWords('a"b c')).toEqual(['a"b', 'c']);
  });
});
