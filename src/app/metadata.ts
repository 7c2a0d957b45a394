/**
 * The one metadata path, shared by GraphQL's `metadata` fields and the KairosDB REST API's /api/v1/metadata: names
 * checked in the caller's field names, then KairosDB's service_index through the source's store.
 *
 * What the API may touch, as KairosDB decides and a little stricter: services named `_...` are KairosDB's own
 * (roll-up tasks, assignments, hosts) and are not served at all; the service `kairograph` holds this gateway's own
 * markers (since when each tag index is complete) and may be read but not changed, since a changed marker would
 * make queries trust an incomplete index.
 */
import { InputError } from '../model/errors.js';
import type { ServiceIndex } from '../model/service-index.js';
import type { Source } from '../sources/source.js';

export interface MetadataKey {
  readonly service: string;
  readonly serviceKey?: string;
  readonly key?: string;
}

/**
 * The metadata of `source`, for reading or for changing it: the source's service_index once `at`'s names are
 * checked. Throws an InputError naming the field otherwise: `service`, `serviceKey`, `key`, as both front ends name
 * them (KairosDB's path parameters, GraphQL's arguments).
 */
export function metadataFor(source: Source, at: MetadataKey, change: boolean): ServiceIndex {
  const fields = { service: 'service', serviceKey: 'serviceKey', key: 'key' } as const;
  const metadata = source.capabilities.metadata;
  if (metadata === undefined)
    throw new InputError('source', source.name, `has no metadata: its ${source.layout} layout keeps no service_index`);
  checkName(at.service, fields.service);
  if (at.service.startsWith('_')) {
    throw new InputError(
      fields.service,
      at.service,
      "starts with '_': such services are KairosDB's own (roll-up tasks, hosts), which the metadata API does not serve",
    );
  }
  if (change && metadata.readOnlyServices.includes(at.service)) {
    throw new InputError(
      fields.service,
      at.service,
      "is the gateway's own (since when each tag index is complete): it may be read, not changed",
    );
  }
  const index = metadata.index;
  if (at.serviceKey !== undefined) checkName(at.serviceKey, fields.serviceKey);
  if (at.key !== undefined) checkName(at.key, fields.key);
  const bytes =
    Buffer.byteLength(at.service) + Buffer.byteLength(at.serviceKey ?? '') + Buffer.byteLength(at.key ?? '');
  if (bytes > index.maxKeyBytes) {
    const [field, value] =
      at.key !== undefined
        ? [fields.key, at.key]
        : at.serviceKey !== undefined
          ? [fields.serviceKey, at.serviceKey]
          : [fields.service, at.service];
    throw new InputError(
      field,
      value,
      `makes the service, service key and key ${bytes} bytes of UTF-8 together, over the store's ${index.maxKeyBytes}`,
    );
  }
  return index;
}

function checkName(name: string, field: string): void {
  if (name === '') throw new InputError(field, name, 'must not be empty');
}
