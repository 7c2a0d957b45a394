/**
 * Heroic's Cassandra `metrics.metric_key` blobs (docs/heroic-layout.md: ng and legacy keys): encode the key Heroic
 * writes for a (series, base), decode any key Heroic could have written. Pure: no I/O, no driver. This module picks the
 * schema's form; each form's bytes are a module of their own (ng-key.ts, legacy-key.ts), the partition maths another
 * (partitions.ts).
 */
import { KeyError, type DecodedKey, type HeroicSeries } from './key-bytes.js';
import { decodeBigtableKey, encodeBigtableKey } from './bigtable-key.js';
import { decodeLegacy, encodeLegacy } from './legacy-key.js';
import { decodeNg, encodeNg } from './ng-key.js';
import { checkBase, widthOf, type HeroicSchema } from './partitions.js';

/**
 * The metric_key blob Heroic writes today for the schema: ng with the resource map; legacy as a composite, which has
 * no resource, so a non-empty resource throws. A lone surrogate throws in ng (Heroic's encoder would silently cut
 * the string there) and becomes `?` in legacy (Java's getBytes).
 */
export function encodeKey(schema: HeroicSchema, series: HeroicSeries, base: number): Buffer {
  widthOf(schema);
  checkBase(schema, base);
  if (schema === 'bigtable') return encodeBigtableKey(series, base);
  return schema === 'ng' ? encodeNg(series, base) : encodeLegacy(series, base);
}

/**
 * Decodes a metric_key blob written in the schema's form(s): ng tries the current form, then the pre-resource form;
 * each must consume every byte. Returns the reason when it cannot; never throws for bad bytes.
 *
 * Only what Heroic's encoders can produce is accepted, so a decoded key names exactly one partition: bases must be
 * aligned multiples of the width (Heroic computes them as `ts - ts % width`; an unaligned base means the bytes are not
 * a key of this schema), map keys strictly ascending (duplicates and disorder are errors), UTF-8 valid (Heroic's
 * ng reader also rejects it; its legacy reader would have put U+FFFD in). The one leniency is legacy null strings,
 * which Heroic wrote for null keys and values: a null key or tag name decodes as "", and an entry whose value is null
 * is dropped, as Heroic's legacy MapSerializer drops it. Re-encoding such a key does not give back its bytes, so
 * callers read partitions with the bytes they enumerated, not with re-encoded ones.
 */
export function decodeKey(schema: HeroicSchema, bytes: Uint8Array): DecodedKey | { readonly error: string } {
  widthOf(schema);
  if (schema === 'legacy') return attempt(() => decodeLegacy(bytes));
  if (schema === 'bigtable') return attempt(() => decodeBigtableKey(bytes));
  const current = attempt(() => decodeNg(bytes, true));
  if (!('error' in current)) return current;
  const preResource = attempt(() => decodeNg(bytes, false));
  if (!('error' in preResource)) return preResource;
  return { error: `${current.error}; read as a pre-resource key (no resource map): ${preResource.error}` };
}

function attempt(decode: () => DecodedKey): DecodedKey | { readonly error: string } {
  try {
    return decode();
  } catch (e) {
    if (e instanceof KeyError) return { error: e.message };
    throw e;
  }
}
