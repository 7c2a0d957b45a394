// Prometheus's parameters as its API reads them: times, durations, limits, U__ names; and results' times.
import { describe, expect, it } from 'vitest';
import { durationParam, limitParam, parseTime, unescapeLabelName } from './prom-params.js';
import { timestamp } from './render-result.js';

const params = (text: string) => new URLSearchParams(text);

describe('parseTime', () => {
  it('reads float seconds to the millisecond, and RFC 3339 with its zone', () => {
    expect(['4', '1.5', '1.001', '-1.25', '1e3', '1700000000.123'].map(parseTime)).toEqual([
      4000, 1500, 1001, -1250, 1_000_000, 1_700_000_000_123,
    ]);
    expect(['1970-01-01T00:00:01Z', '1970-01-01T01:00:00.25+01:00'].map(parseTime)).toEqual([1000, 250]);
  });

  it('refuses what is neither', () => {
    expect(['', 'now', '2024-01-01', 'NaN', 'Inf', '0x10'].map(parseTime)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('durationParam', () => {
  it('reads float seconds and Prometheus durations', () => {
    expect(['15', '0.5', '1m30s', '250ms', '1d'].map((s) => durationParam(params(`step=${s}`), 'step'))).toEqual([
      15_000, 500, 90_000, 250, 86_400_000,
    ]);
    expect(durationParam(params(''), 'step')).toBeUndefined();
  });

  it("refuses others in Prometheus's words", () => {
    expect(() => durationParam(params('step=1x'), 'step')).toThrow(
      'invalid parameter "step": cannot parse "1x" to a valid duration',
    );
    expect(() => durationParam(params('step=1e20'), 'step')).toThrow(
      'invalid parameter "step": cannot parse "1e20" to a valid duration. It overflows int64',
    );
  });
});

describe('limitParam', () => {
  it('reads a whole number, 0 when absent', () => {
    expect([limitParam(params('')), limitParam(params('limit=0')), limitParam(params('limit=40000'))]).toEqual([
      0, 0, 40_000,
    ]);
    expect(() => limitParam(params('limit=1.5'))).toThrow('invalid parameter "limit": "1.5" is not a whole number');
    expect(() => limitParam(params('limit=-1'))).toThrow('invalid parameter "limit": limit must be non-negative');
  });
});

describe('unescapeLabelName', () => {
  it("undoes Prometheus's U__ value-encoding escaping, leaving other names alone", () => {
    expect(
      ['U__host_2e_name', 'U__a__b', 'U__caf_e9_', 'U___1f600_', 'host', 'U__bad_zz_', 'U__open_2e'].map(
        unescapeLabelName,
      ),
    ).toEqual(['host.name', 'a_b', 'café', '😀', 'host', 'U__bad_zz_', 'U__open_2e']);
  });
});

describe('timestamp', () => {
  it("writes seconds as Prometheus's MarshalTimestamp does: three digits after the point, or none", () => {
    expect([4000, 1500, 1001, 121_500, -1250, 0].map(timestamp)).toEqual([
      '4',
      '1.500',
      '1.001',
      '121.500',
      '-1.250',
      '0',
    ]);
  });
});
