// Datastore type strings, the third field of a data_points row key (reference §3): how API types map to them and
// which slice kind each one decodes to.
import type { SliceKind } from '../../model/series.js';
import type { ValueType } from '../../model/write-batch.js';

/** The datastore type each API type is written as by KairosDB's default factories (`complex` is a plugin type). */
export const DATASTORE_TYPES = Object.freeze({
  long: 'kairos_long',
  double: 'kairos_double',
  string: 'kairos_string',
  complex: 'kairos_complex',
} as const satisfies Record<ValueType | 'complex', string>);

/** The type KairosDB ≤0.9.3 rows carry; their keys have no type field and their columns carry a long/float flag. */
export const LEGACY_DATA_TYPE = 'kairos_legacy';

export function datastoreTypeOf(type: ValueType): string {
  return DATASTORE_TYPES[type];
}

/**
 * How a row's values decode. kairos_long_nano (an unbound KairosDB factory) shares kairos_long's varint; unknown
 * types (custom factories) are undefined so the caller can report them.
 */
export function sliceKindOf(dataType: string): SliceKind | 'legacy' | undefined {
  switch (dataType) {
    case 'kairos_long':
    case 'kairos_long_nano':
      return 'long';
    case 'kairos_double':
      return 'double';
    case 'kairos_string':
      return 'string';
    case 'kairos_complex':
      return 'complex';
    case LEGACY_DATA_TYPE:
      return 'legacy';
    default:
      return undefined;
  }
}
