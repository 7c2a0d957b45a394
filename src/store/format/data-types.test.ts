import { describe, expect, it } from 'vitest';
import type { ValueType } from '../../model/write-batch.js';
import { DATASTORE_TYPES, LEGACY_DATA_TYPE, datastoreTypeOf, sliceKindOf } from './data-types.js';

describe('DATASTORE_TYPES', () => {
  it('maps API types to the datastore strings of KairosDB factories', () => {
    expect(DATASTORE_TYPES).toEqual({
      long: 'kairos_long',
      double: 'kairos_double',
      string: 'kairos_string',
      complex: 'kairos_complex',
    });
    expect(Object.isFrozen(DATASTORE_TYPES)).toBe(true);
  });

  it('datastoreTypeOf covers every ValueType', () => {
    const types: ValueType[] = ['long', 'double', 'string'];
    expect(types.map(datastoreTypeOf)).toEqual(['kairos_long', 'kairos_double', 'kairos_string']);
  });
});

describe('sliceKindOf', () => {
  it('knows every type KairosDB reads from Cassandra', () => {
    expect(sliceKindOf('kairos_long')).toBe('long');
    expect(sliceKindOf('kairos_long_nano')).toBe('long');
    expect(sliceKindOf('kairos_double')).toBe('double');
    expect(sliceKindOf('kairos_string')).toBe('string');
    expect(sliceKindOf('kairos_complex')).toBe('complex');
    expect(sliceKindOf(LEGACY_DATA_TYPE)).toBe('legacy');
    expect(LEGACY_DATA_TYPE).toBe('kairos_legacy');
  });

  it('is undefined for anything else', () => {
    expect(sliceKindOf('null')).toBeUndefined();
    expect(sliceKindOf('')).toBeUndefined();
    expect(sliceKindOf('Kairos_long')).toBeUndefined();
    expect(sliceKindOf('long')).toBeUndefined();
  });
});
