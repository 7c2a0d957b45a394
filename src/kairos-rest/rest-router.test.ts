/**
 * The REST router over find-my-way: templates as metrics name them, 404 for paths no route has, a method a route lacks
 * found through OPTIONS with the route's Allow, and parameters handed over exactly as sent, whatever their escapes.
 */
import { describe, expect, it } from 'vitest';
import type { Endpoint, Handler, RestRoute } from './rest-endpoint.js';
import { RestRouter } from './rest-router.js';

const handler: Handler = async () => ({ status: 204 });
const read: Endpoint = [handler, 'read'];
const write: Endpoint = [handler, 'write'];
const open: Endpoint = [handler, null];

const ROUTES: readonly RestRoute[] = [
  { path: '/version', methods: { GET: open } },
  { path: '/datapoints/query', methods: { GET: read, POST: read } },
  { path: '/metric/:name', methods: { DELETE: write } },
  { path: '/metadata/:service/:serviceKey/:key', methods: { GET: read, POST: write, DELETE: write } },
  { path: '/rollups/status/:id', methods: { GET: read } },
  { path: '/rollups/:id', methods: { GET: read, PUT: write, DELETE: write } },
];

const router = new RestRouter(ROUTES);

/** What a match says, with its endpoint named by the scope it needs (undefined: the method is not the route's). */
function matched(method: string, path: string) {
  const match = router.match(method, path);
  if (match === undefined) return undefined;
  return { template: match.template, allow: match.allow, scope: match.endpoint?.[1], params: { ...match.params } };
}

describe('RestRouter', () => {
  it("names each route by its template under /api/v1 and hands over the method's endpoint", () => {
    expect(matched('GET', '/api/v1/version')).toEqual({
      template: '/api/v1/version',
      allow: 'GET, OPTIONS',
      scope: null,
      params: {},
    });
    expect(matched('DELETE', '/api/v1/metric/cpu.load')).toEqual({
      template: '/api/v1/metric/{name}',
      allow: 'DELETE, OPTIONS',
      scope: 'write',
      params: { name: 'cpu.load' },
    });
    expect(matched('POST', '/api/v1/metadata/svc/key/k')).toEqual({
      template: '/api/v1/metadata/{service}/{serviceKey}/{key}',
      allow: 'GET, POST, DELETE, OPTIONS',
      scope: 'write',
      params: { service: 'svc', serviceKey: 'key', key: 'k' },
    });
  });

  it('finds a method the route lacks, and OPTIONS, through the route with no endpoint and its Allow', () => {
    for (const method of ['PUT', 'HEAD', 'PATCH', 'OPTIONS'])
      expect(matched(method, '/api/v1/datapoints/query')).toEqual({
        template: '/api/v1/datapoints/query',
        allow: 'GET, POST, OPTIONS',
        scope: undefined,
        params: {},
      });
  });

  it('has no route for other paths, a segment more or less, or another case', () => {
    for (const path of [
      '/api/v1/tagnames',
      '/api/v1/metric',
      '/api/v1/metric/a/b',
      '/api/v1/Version',
      '/api/v2/version',
    ])
      expect(matched('GET', path), path).toBeUndefined();
  });

  it('prefers a fixed segment to a parameter, and falls back to the parameter where the fixed one leads nowhere', () => {
    expect(matched('GET', '/api/v1/rollups/status/t1')?.template).toBe('/api/v1/rollups/status/{id}');
    expect(matched('GET', '/api/v1/rollups/status')).toEqual({
      template: '/api/v1/rollups/{id}',
      allow: 'GET, PUT, DELETE, OPTIONS',
      scope: 'read',
      params: { id: 'status' },
    });
  });

  it('hands parameters over as sent, escapes and all, so the endpoint decodes them and names a bad one', () => {
    for (const name of ['a%2Fb', '%25', '%2525', 'caf%C3%A9', '%E0%A4%A', '100%', 'a%3Fb%23c'])
      expect(matched('DELETE', `/api/v1/metric/${name}`)?.params, name).toEqual({ name });
    expect(matched('GET', '/api/v1/metadata/s%2F1/k%25/%E0%A4%A')?.params).toEqual({
      service: 's%2F1',
      serviceKey: 'k%25',
      key: '%E0%A4%A',
    });
    // An escape in a fixed segment is not that segment.
    expect(matched('GET', '/api/v1/versio%6E')).toBeUndefined();
  });

  it('takes parameters of any length (find-my-way would answer those over 100 characters as no route)', () => {
    const name = 'm'.repeat(5000);
    expect(matched('DELETE', `/api/v1/metric/${name}`)?.params).toEqual({ name });
  });
});
