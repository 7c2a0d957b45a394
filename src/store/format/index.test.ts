import { describe, expect, it } from 'vitest';
import * as format from './index.js';

describe('format/index', () => {
  it('exports the API the stores are written against', () => {
    const functions = [
      'rowTimeOf',
      'rowWidthMs',
      'partitionCovered',
      'encodeTagString',
      'decodeTagString',
      'encodeRowKey',
      'decodeRowKey',
      'rowKeyBytesEqual',
      'encodeColumn',
      'encodeLegacyRowColumn',
      'decodeColumn',
      'legacyColumnIsDouble',
      'columnBounds',
      'writeColumn',
      'readColumn',
      'encodeModifiedUtf8',
      'decodeModifiedUtf8',
      'modifiedUtf8Length',
      'writeModifiedUtf8',
      'encodeLong',
      'decodeLong',
      'encodeDouble',
      'decodeDouble',
      'encodeString',
      'decodeString',
      'encodeComplex',
      'decodeComplex',
      'decodeLegacyLong',
      'encodeLegacyLong',
      'decodeLegacyDouble',
      'encodeLegacyFloat',
      'encodeLegacyDouble',
      'datastoreTypeOf',
      'sliceKindOf',
    ];
    for (const name of functions) expect(typeof (format as Record<string, unknown>)[name], name).toBe('function');
    expect(format.NULL_VALUE).toBeInstanceOf(Uint8Array);
    expect(format.DATASTORE_TYPES.long).toBe('kairos_long');
    expect(format.LEGACY_DATA_TYPE).toBe('kairos_legacy');
  });
});
