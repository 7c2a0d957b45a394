/**
 * KairosDB's MetadataResource through the app layer's metadata: lists as {"results": [...]}, a value as its own text,
 * changes answered with 204.
 */
import { metadataFor } from '../app/metadata.js';
import { restErrorBody } from './rest-answers.js';
import { pathParam, readText, type Call, type Reply, type RestRoute } from './rest-endpoint.js';

export const METADATA_ROUTES: readonly RestRoute[] = [
  { path: '/metadata/:service', methods: { GET: [metadataServiceKeys, 'read'] } },
  { path: '/metadata/:service/:serviceKey', methods: { GET: [metadataKeys, 'read'] } },
  {
    path: '/metadata/:service/:serviceKey/:key',
    methods: {
      GET: [metadataValue, 'read'],
      POST: [setMetadataValue, 'write'],
      DELETE: [deleteMetadataValue, 'delete'],
    },
  },
];

/** The route's service, service key and key (those it has), and the index that answers for them. */
function metadataAt(call: Call, change: boolean) {
  const [service, serviceKey, key] = (['service', 'serviceKey', 'key'] as const)
    .filter((name) => call.path[name] !== undefined)
    .map((name) => pathParam(call, name));
  const at = {
    service: service!,
    ...(serviceKey !== undefined ? { serviceKey } : {}),
    ...(key !== undefined ? { key } : {}),
  };
  return {
    index: metadataFor(call.ctx.sources.primary, at, change),
    service: service!,
    serviceKey: serviceKey!,
    key: key!,
  };
}

async function metadataServiceKeys(call: Call): Promise<Reply> {
  const { index, service } = metadataAt(call, false);
  return { status: 200, body: JSON.stringify({ results: await index.serviceKeys(service) }) };
}

async function metadataKeys(call: Call): Promise<Reply> {
  const { index, service, serviceKey } = metadataAt(call, false);
  return {
    status: 200,
    body: JSON.stringify({ results: await index.keys(service, serviceKey, call.params.get('startsWith') ?? '') }),
  };
}

/**
 * The value as it was set, not as JSON: KairosDB answers with the text itself, typed as JSON unless the client asks
 * for text/plain. A missing key is a 404, with KairosDB's error body unless the client asked for text.
 */
async function metadataValue(call: Call): Promise<Reply> {
  const { index, service, serviceKey, key } = metadataAt(call, false);
  const text = wantsPlainText(call.req.headers.accept);
  const found = await index.value(service, serviceKey, key);
  if (found === undefined) return text ? { status: 404 } : { status: 404, body: restErrorBody('Key not found') };
  return {
    status: 200,
    body: found.value,
    ...(text ? { headers: { 'content-type': 'text/plain; charset=UTF-8' } } : {}),
  };
}

async function setMetadataValue(call: Call): Promise<Reply> {
  const { index, service, serviceKey, key } = metadataAt(call, true);
  await index.set(service, serviceKey, key, await readText(call));
  return { status: 204 };
}

async function deleteMetadataValue(call: Call): Promise<Reply> {
  const { index, service, serviceKey, key } = metadataAt(call, true);
  await index.delete(service, serviceKey, key);
  return { status: 204 };
}

/** True when the client prefers text/plain to JSON (JAX-RS picks KairosDB's text/plain method for such an Accept). */
function wantsPlainText(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  return types.includes('text/plain') && !types.includes('application/json');
}
