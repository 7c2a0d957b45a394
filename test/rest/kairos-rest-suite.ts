/**
 * The KairosDB REST API suite, written once and run against every store (embedded in the unit run, Cassandra in the
 * integration run): request/response pairs for every endpoint over real HTTP, including both Grafana KairosDB
 * plugins' request shapes, gzip bodies, CORS, refusals that write nothing, and GraphQL reading what REST wrote.
 */
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/model/errors.js';
import type { Store } from '../../src/store/store.js';
import {
  callRest,
  jsonHeaders,
  NO_CONTENT_HEADERS,
  startRestGateway,
  type RestGateway,
  type RestResponse,
} from './rest-client.js';

export interface RestStoreOptions {
  /** Row width in ms of a fresh store; undefined for KairosDB's 3 weeks. */
  readonly rowWidth?: number;
}

/** Makes a fresh, empty store; the suite closes it. */
export type RestStoreFactory = (options?: RestStoreOptions) => Promise<Store>;

/** 2024-05-01T10:00:00Z, the start of grafana/kairosdb-datasource's example panel range. */
const T0 = 1714557600000;

const GRAPHQL_POINTS = `query Read($metric: String!, $from: Time!, $where: [TagMatch!]) {
  points(metric: $metric, from: $from, to: "8640000000000000", where: $where) {
    metric
    tags { name values }
    points { epochMs value long text type }
  }
}`;

export function describeKairosRest(storeName: string, createStore: RestStoreFactory): void {
  describe(`KairosDB REST API over the ${storeName} store`, () => {
    const opened: { store: Store; gateway: RestGateway }[] = [];
    afterEach(async () => {
      for (const { store, gateway } of opened.splice(0)) {
        await gateway.close();
        await store.close();
      }
    });
    /** A gateway over a fresh store; `wrap` may put a proxy between them. */
    const start = async (
      env: Record<string, string> = {},
      options: RestStoreOptions = {},
      wrap: (store: Store) => Store = (s) => s,
    ) => {
      const store = await createStore(options);
      const gateway = await startRestGateway(wrap(store), env);
      opened.push({ store, gateway });
      return gateway;
    };
    const ok = (text: string) => ({ status: 200, headers: jsonHeaders(text), text });
    const refused = (status: number, message: string, extra: Record<string, string> = {}, handled = true) => {
      const text = JSON.stringify({ errors: [message] });
      return { status, headers: jsonHeaders(text, extra, handled), text };
    };
    const noContent = { status: 204, headers: NO_CONTENT_HEADERS, text: '' };
    const exchange = (r: RestResponse) => ({ status: r.status, headers: r.headers, text: r.text });
    const noMetrics = async (gw: RestGateway) =>
      expect((await gw.call('GET', '/api/v1/metricnames')).json).toEqual({ results: [] });

    describe('version, health, metric names, CORS and routing', () => {
      it('answers GET /version in KairosDB form, which ArpNetworking/kairosdb-datasource tests the connection with', async () => {
        const gw = await start();
        expect(exchange(await gw.call('GET', '/api/v1/version'))).toEqual(
          ok('{"version":"KairosDB 1.3.0-1 (Kairograph 0.1.0)"}'),
        );
      });

      it('answers the health check with 204 and the status with the datastore check', async () => {
        const gw = await start();
        expect(exchange(await gw.call('GET', '/api/v1/health/check'))).toEqual(noContent);
        expect(exchange(await gw.call('GET', '/api/v1/health/status'))).toEqual(ok('["Datastore-Query: OK"]'));
      });

      it('reports a store that does not answer as 500 on the check, as KairosDB does, and FAIL in the status', async () => {
        const down = await start({}, {}, (store) =>
          proxy(store, 'ping', async () =>
            Promise.reject(new StoreUnavailableError('cassandra', new Error('no hosts'))),
          ),
        );
        expect(exchange(await down.call('GET', '/api/v1/health/check'))).toEqual(
          refused(500, 'the cassandra store is unavailable: no hosts'),
        );
        expect(exchange(await down.call('GET', '/api/v1/health/status'))).toEqual(ok('["Datastore-Query: FAIL"]'));
        const broken = await start({}, {}, (store) => failing(store, 'ping', 'connection refused'));
        expect(exchange(await broken.call('GET', '/api/v1/health/check'))).toEqual(refused(500, 'Unexpected error.'));
        expect(exchange(await broken.call('GET', '/api/v1/health/status'))).toEqual(ok('["Datastore-Query: FAIL"]'));
      });

      it('lists metric names, all or by prefix', async () => {
        const gw = await start();
        const write = await gw.call('POST', '/api/v1/datapoints', {
          body: ['sys.cpu', 'sys.mem', 'app.req', 'sys'].map((name) => ({
            name,
            tags: { h: 'a' },
            timestamp: T0,
            value: 1,
          })),
        });
        expect(write.status).toBe(204);
        expect(exchange(await gw.call('GET', '/api/v1/metricnames'))).toEqual(
          ok('{"results":["app.req","sys","sys.cpu","sys.mem"]}'),
        );
        expect(exchange(await gw.call('GET', '/api/v1/metricnames?prefix=sys.'))).toEqual(
          ok('{"results":["sys.cpu","sys.mem"]}'),
        );
        expect(exchange(await gw.call('GET', '/api/v1/metricnames?prefix=zz'))).toEqual(ok('{"results":[]}'));
      });

      it.each([
        ['/api/v1/version', 'GET, OPTIONS'],
        ['/api/v1/health/check', 'GET, OPTIONS'],
        ['/api/v1/health/status', 'GET, OPTIONS'],
        ['/api/v1/metricnames', 'GET, OPTIONS'],
        ['/api/v1/datapoints', 'POST, OPTIONS'],
        ['/api/v1/datapoints/query', 'GET, POST, OPTIONS'],
        ['/api/v1/datapoints/query/tags', 'POST, OPTIONS'],
        ['/api/v1/datapoints/delete', 'POST, OPTIONS'],
        ['/api/v1/metric/sys.cpu', 'DELETE, OPTIONS'],
      ])(
        'answers a CORS preflight on %s from an origin of CORS_ORIGINS only, and a plain OPTIONS with what the path takes',
        async (path, methods) => {
          const gw = await start({ CORS_ORIGINS: 'http://grafana.local:3000' });
          const ask = (origin: string) =>
            gw.call('OPTIONS', path, {
              headers: {
                origin,
                'access-control-request-method': 'POST',
                'access-control-request-headers': 'content-type, x-grafana-org-id',
              },
            });
          expect(exchange(await ask('http://grafana.local:3000'))).toEqual({
            status: 204,
            headers: {
              'access-control-allow-credentials': 'true',
              'access-control-allow-headers': 'content-type, x-grafana-org-id',
              'access-control-allow-methods': 'GET, POST, PUT, DELETE',
              'access-control-allow-origin': 'http://grafana.local:3000',
              'access-control-expose-headers':
                'x-request-id, retry-after, ratelimit, ratelimit-policy, www-authenticate',
              'access-control-max-age': '86400',
              connection: 'keep-alive',
              vary: 'Origin',
            },
            text: '',
          });
          const foreign = await ask('http://grafana.evil:3000');
          expect([foreign.status, foreign.headers['access-control-allow-origin'], foreign.json]).toEqual([
            403,
            undefined,
            {
              errors: [
                'requests from pages of "http://grafana.evil:3000" are not allowed: add that origin to CORS_ORIGINS to let its pages use the gateway',
              ],
            },
          ]);
          // Answered before a request id is given, as 404s and 405s are.
          const { 'x-request-id': _, ...unhandled } = NO_CONTENT_HEADERS;
          expect(exchange(await gw.call('OPTIONS', path))).toEqual({
            status: 204,
            headers: { ...unhandled, allow: methods },
            text: '',
          });
        },
      );

      it('answers unknown paths with 404 and wrong methods with 405, in KairosDB error form', async () => {
        const gw = await start();
        expect(exchange(await gw.call('GET', '/api/v1/tagnames'))).toEqual(
          refused(404, '/api/v1/tagnames is not a path of the KairosDB REST API', {}, false),
        );
        expect(exchange(await gw.call('GET', '/api/v1/datapoints'))).toEqual(
          refused(405, 'GET is not allowed on /api/v1/datapoints (POST, OPTIONS)', { allow: 'POST, OPTIONS' }, false),
        );
        expect(exchange(await gw.call('PUT', '/api/v1/datapoints/query', { body: {} }))).toEqual(
          refused(
            405,
            'PUT is not allowed on /api/v1/datapoints/query (GET, POST, OPTIONS)',
            { allow: 'GET, POST, OPTIONS' },
            false,
          ),
        );
      });

      it('masks an unexpected store failure as a 500', async () => {
        const gw = await start({}, {}, (store) => failing(store, 'metricNames', 'disk on fire'));
        expect(exchange(await gw.call('GET', '/api/v1/metricnames'))).toEqual(refused(500, 'Unexpected error.'));
      });
    });

    describe('POST /datapoints', () => {
      it('takes a single object or an array, timestamp or time with value, and datapoints, inferring types as KairosDB does (and a ttl as a number or, as Gson reads an int, a numeric string)', async () => {
        const gw = await start();
        const single = await gw.call('POST', '/api/v1/datapoints', {
          body: '{"name": "one", "timestamp": 1000, "value": 7, "tags": {"host": "a"}}',
        });
        expect(exchange(single)).toEqual(noContent);
        const many = await gw.call('POST', '/api/v1/datapoints', {
          body: `[
            {"name": "typed", "tags": {"host": "a"}, "datapoints": [
              [1, 5], [2, 5.0], [3, "6"], [4, "6.5"], [5, "-.5"], [6, "text"], [7, true], [8, 1e3], [9, 15e-1], [10, 2.5e1],
              [11, 9223372036854775807], [12, "-9223372036854775808"], [13, 12, "double"], [14, 12, "string"]
            ]},
            {"name": "typed", "tags": {"host": "b"}, "time": 20, "timestamp": 99, "value": "x", "ttl": 3600},
            {"name": "typed", "tags": {"host": "c"}, "type": "double", "ttl": "7200", "datapoints": [[30, 1], [31, "2"]]}
          ]`,
        });
        expect(exchange(many)).toEqual(noContent);
        const read = await gw.graphql(GRAPHQL_POINTS, { metric: 'typed', from: 0 });
        expect(read.body).toEqual({
          data: {
            points: [
              {
                metric: 'typed',
                tags: [{ name: 'host', values: ['a'] }],
                points: [
                  { epochMs: 1, value: 5, long: 5, text: null, type: 'LONG' },
                  { epochMs: 2, value: 5, long: null, text: null, type: 'DOUBLE' },
                  { epochMs: 3, value: 6, long: 6, text: null, type: 'LONG' },
                  { epochMs: 4, value: 6.5, long: null, text: null, type: 'DOUBLE' },
                  { epochMs: 5, value: -0.5, long: null, text: null, type: 'DOUBLE' },
                  { epochMs: 6, value: null, long: null, text: 'text', type: 'STRING' },
                  { epochMs: 7, value: null, long: null, text: 'true', type: 'STRING' },
                  { epochMs: 8, value: 1000, long: 1000, text: null, type: 'LONG' },
                  { epochMs: 9, value: 1, long: 1, text: null, type: 'LONG' },
                  { epochMs: 10, value: 25, long: null, text: null, type: 'DOUBLE' },
                  { epochMs: 11, value: 2 ** 63, long: '9223372036854775807', text: null, type: 'LONG' },
                  { epochMs: 12, value: -(2 ** 63), long: '-9223372036854775808', text: null, type: 'LONG' },
                  { epochMs: 13, value: 12, long: null, text: null, type: 'DOUBLE' },
                  { epochMs: 14, value: null, long: null, text: '12', type: 'STRING' },
                ],
              },
              {
                metric: 'typed',
                tags: [{ name: 'host', values: ['b'] }],
                points: [{ epochMs: 20, value: null, long: null, text: 'x', type: 'STRING' }],
              },
              {
                metric: 'typed',
                tags: [{ name: 'host', values: ['c'] }],
                points: [
                  { epochMs: 30, value: 1, long: null, text: null, type: 'DOUBLE' },
                  { epochMs: 31, value: 2, long: null, text: null, type: 'DOUBLE' },
                ],
              },
            ],
          },
        });
        expect((await gw.call('GET', '/api/v1/metricnames')).json).toEqual({ results: ['one', 'typed'] });
      });

      it('inflates gzip bodies (Content-Encoding: gzip, and the deprecated application/gzip type)', async () => {
        const gw = await start();
        const body = gzipSync(
          JSON.stringify([
            {
              name: 'gz',
              tags: { host: 'a' },
              datapoints: [
                [1, 1],
                [2, 2],
              ],
            },
          ]),
        );
        expect(
          exchange(await gw.call('POST', '/api/v1/datapoints', { body, headers: { 'content-encoding': 'gzip' } })),
        ).toEqual(noContent);
        const legacy = gzipSync(JSON.stringify({ name: 'gz', tags: { host: 'b' }, timestamp: 3, value: 3 }));
        expect(
          exchange(
            await gw.call('POST', '/api/v1/datapoints', {
              body: legacy,
              headers: { 'content-type': 'application/gzip' },
            }),
          ),
        ).toEqual(noContent);
        const read = await gw.call('POST', '/api/v1/datapoints/query', {
          body: { start_absolute: 0, metrics: [{ name: 'gz', group_by: [{ name: 'tag', tags: ['host'] }] }] },
        });
        expect(exchange(read)).toEqual(
          ok(
            '{"queries":[{"sample_size":3,"results":[' +
              '{"name":"gz","group_by":[{"name":"tag","tags":["host"],"group":{"host":"a"}},{"name":"type","type":"number"}],"tags":{"host":["a"]},"values":[[1,1],[2,2]]},' +
              '{"name":"gz","group_by":[{"name":"tag","tags":["host"],"group":{"host":"b"}},{"name":"type","type":"number"}],"tags":{"host":["b"]},"values":[[3,3]]}]}]}',
          ),
        );
      });

      it.each<[string, string, string]>([
        [
          'malformed JSON',
          '[{"name": "m", "tags": {"h": "a"}, "datapoints": [[1, 2]]',
          `request body is not valid JSON: unexpected end of input, expected ',' or '}' at line 1, column 58`,
        ],
        ['an empty body', '', 'request body is not valid JSON: the body is empty'],
        ['a body that is a number', '42', 'body must be a metric object or an array of metric objects (got 42)'],
        [
          'a missing name',
          '[{"name": "ok", "tags": {"h": "a"}, "datapoints": [[1, 2]]}, {"tags": {"h": "a"}, "datapoints": [[1, 2]]}]',
          'metric[1].name must be a string (got undefined)',
        ],
        [
          'an empty name',
          '{"name": "", "tags": {"h": "a"}, "timestamp": 1, "value": 1}',
          'metric[0].name must not be empty (got "")',
        ],
        [
          'no tags',
          '{"name": "m", "tags": {}, "datapoints": [[1, 2]]}',
          'metric[0].tags must hold at least one tag (got {})',
        ],
        [
          'an empty tag value',
          '{"name": "m", "tags": {"host": ""}, "datapoints": [[1, 2]]}',
          'metric[0].tags.host must not be empty (got "")',
        ],
        [
          'an empty tag name',
          '{"name": "m", "tags": {"": "a"}, "datapoints": [[1, 2]]}',
          'metric[0].tags must not have an empty tag name (got "")',
        ],
        [
          'a null tag value',
          '{"name": "m", "tags": {"host": null}, "datapoints": [[1, 2]]}',
          'metric[0].tags.host must be a string (got null)',
        ],
        [
          'a fractional timestamp',
          '{"name": "m", "tags": {"h": "a"}, "datapoints": [[1, 2], [2.5, 3]]}',
          'metric[0].datapoints[1].timestamp must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got 2.5)',
        ],
        [
          'a null timestamp',
          '{"name": "m", "tags": {"h": "a"}, "datapoints": [[null, 3]]}',
          'metric[0].datapoints[0].timestamp must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000 (got null)',
        ],
        [
          'a value without a timestamp',
          '{"name": "m", "tags": {"h": "a"}, "value": 3}',
          'metric[0].timestamp is required with value (got undefined)',
        ],
        [
          'a timestamp without a value',
          '{"name": "m", "tags": {"h": "a"}, "time": 3}',
          'metric[0].value is required with time (got undefined)',
        ],
        [
          'a null value',
          '{"name": "m", "tags": {"h": "a"}, "datapoints": [[1, null]]}',
          'metric[0].datapoints[0].value must not be null (got null)',
        ],
        [
          'an empty value',
          '{"name": "m", "tags": {"h": "a"}, "datapoints": [[1, ""]]}',
          'metric[0].datapoints[0].value must not be empty (got "")',
        ],
        [
          'an empty value of type string',
          '{"name": "m", "tags": {"h": "a"}, "type": "string", "datapoints": [[1, ""]]}',
          'metric[0].datapoints[0].value must not be empty (got "")',
        ],
        [
          'an object value',
          '{"name": "m", "tags": {"h": "a"}, "datapoints": [[1, {"v": 1}]]}',
          'metric[0].datapoints[0].value must be a number, a string or a boolean (got {"v":1})',
        ],
        [
          'a pair with one element',
          '{"name": "m", "tags": {"h": "a"}, "datapoints": [[1]]}',
          'metric[0].datapoints[0] must be [timestamp, value] or [timestamp, value, type] (got [1])',
        ],
        [
          'datapoints that are an object',
          '{"name": "m", "tags": {"h": "a"}, "datapoints": {"1": 2}}',
          'metric[0].datapoints must be an array of [timestamp, value] or [timestamp, value, type] (got {"1":2})',
        ],
        [
          'an unknown type',
          '{"name": "m", "tags": {"h": "a"}, "type": "complex-number", "datapoints": [[1, 2]]}',
          'metric[0].type must be one of long, double, string (got "complex-number")',
        ],
        [
          'an unknown point type',
          '{"name": "m", "tags": {"h": "a"}, "datapoints": [[1, 2, "float"]]}',
          'metric[0].datapoints[0].type must be one of long, double, string (got "float")',
        ],
        [
          'a long that is not an integer',
          '{"name": "m", "tags": {"h": "a"}, "type": "long", "datapoints": [[1, 2.5]]}',
          'metric[0].datapoints[0].value must be an integer for type long (got 2.5)',
        ],
        [
          'a long beyond 64 bits',
          '{"name": "m", "tags": {"h": "a"}, "datapoints": [[1, 9223372036854775808]]}',
          'metric[0].datapoints[0].value must fit in a signed 64-bit long (got 9223372036854775808)',
        ],
        [
          'a double that overflows',
          '{"name": "m", "tags": {"h": "a"}, "datapoints": [[1, 1.0e999]]}',
          'metric[0].datapoints[0].value must be a finite number for type double (got Infinity)',
        ],
        [
          'a negative ttl',
          '{"name": "m", "tags": {"h": "a"}, "ttl": -1, "datapoints": [[1, 2]]}',
          'metric[0].ttl must be a whole number of seconds from 0 to 630720000 (got -1)',
        ],
        [
          'a ttl in text that is no whole number',
          '{"name": "m", "tags": {"h": "a"}, "ttl": "1h", "datapoints": [[1, 2]]}',
          'metric[0].ttl must be a whole number of seconds from 0 to 630720000 (got "1h")',
        ],
        [
          'more points than MAX_WRITE_POINTS',
          JSON.stringify({ name: 'm', tags: { h: 'a' }, datapoints: Array.from({ length: 51 }, (_, i) => [i, i]) }),
          'body must hold at most 50 points in one batch (got 51)',
        ],
      ])('refuses %s with 400, naming the field, and writes nothing of the batch', async (_, body, message) => {
        const gw = await start({ MAX_WRITE_POINTS: '50' });
        expect(exchange(await gw.call('POST', '/api/v1/datapoints', { body }))).toEqual(refused(400, message));
        await noMetrics(gw);
      });

      it('refuses bodies over REST_MAX_BODY_BYTES, as sent or as inflated, and bad or unknown encodings', async () => {
        const gw = await start({ REST_MAX_BODY_BYTES: '2048' });
        const big = JSON.stringify({
          name: 'm',
          tags: { h: 'a' },
          datapoints: Array.from({ length: 300 }, (_, i) => [i, i]),
        });
        expect(exchange(await gw.call('POST', '/api/v1/datapoints', { body: big }))).toEqual(
          refused(413, 'request body exceeds 2048 bytes (REST_MAX_BODY_BYTES)', { connection: 'close' }),
        );
        const bomb = gzipSync(`[${' '.repeat(1_000_000)}]`);
        expect(bomb.length).toBeLessThan(2048);
        expect(
          exchange(
            await gw.call('POST', '/api/v1/datapoints', { body: bomb, headers: { 'content-encoding': 'gzip' } }),
          ),
        ).toEqual(
          refused(413, 'inflated request body exceeds 2048 bytes (REST_MAX_BODY_BYTES)', { connection: 'close' }),
        );
        expect(
          exchange(
            await gw.call('POST', '/api/v1/datapoints', {
              body: '{"name": "m"}',
              headers: { 'content-encoding': 'gzip' },
            }),
          ),
        ).toEqual(refused(400, 'request body is not valid gzip data: incorrect header check'));
        expect(
          exchange(await gw.call('POST', '/api/v1/datapoints', { body: '{}', headers: { 'content-encoding': 'br' } })),
        ).toEqual(refused(415, 'Content-Encoding br is not supported (gzip, deflate or identity)'));
        await noMetrics(gw);
      });

      it('answers a body that never finishes with 408 when QUERY_TIMEOUT_MS passes, and closes the connection', async () => {
        const gw = await start({ QUERY_TIMEOUT_MS: '300' });
        const answer = await new Promise<{ status: number; text: string; connection: string | undefined }>(
          (resolve, reject) => {
            let answered = false;
            const req = request(
              `${gw.url}/api/v1/datapoints`,
              { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '1000' } },
              (res) => {
                answered = true;
                let text = '';
                res.setEncoding('utf8');
                res.on('data', (chunk: string) => (text += chunk));
                // The client never finishes its body and never closes: the server must let go of the socket.
                res.socket.once('close', () =>
                  resolve({ status: res.statusCode!, text, connection: res.headers.connection }),
                );
              },
            );
            req.on('error', (error) => {
              if (!answered) reject(error);
            });
            req.write('[{"name": "m", ');
          },
        );
        // 408, not QUERY_TIMEOUT's 504: the client was late, not the store (the server answers any late request so).
        expect(answer).toEqual({
          status: 408,
          text: '{"errors":["the request was not received within its time limit of 300 ms (QUERY_TIMEOUT_MS)"]}',
          connection: 'close',
        });
        await noMetrics(gw);
      });
    });

    describe('POST and GET /datapoints/query', () => {
      /** grafana/kairosdb-datasource's example panel data: three hosts, the third filtered out by the panel. */
      const writeLoad = async (gw: RestGateway) => {
        const write = await gw.call('POST', '/api/v1/datapoints', {
          body: [
            {
              name: 'sys.cpu.load',
              tags: { host: 'web-1', dc: 'eu' },
              datapoints: [
                [T0, 1],
                [T0 + 10_000, 3],
                [T0 + 40_000, 5],
              ],
            },
            {
              name: 'sys.cpu.load',
              tags: { host: 'web-2', dc: 'eu' },
              datapoints: [
                [T0 + 5_000, 12],
                [T0 + 65_000, 14],
              ],
            },
            { name: 'sys.cpu.load', tags: { host: 'web-3', dc: 'us' }, datapoints: [[T0 + 1_000, 100]] },
          ],
        });
        expect(write.status).toBe(204);
      };

      it("answers grafana/kairosdb-datasource's panel query (upper-case units, sampling values as strings)", async () => {
        const gw = await start();
        await writeLoad(gw);
        const body = `{"start_absolute": 1714557600000, "end_absolute": 1714561200000, "cache_time": 0,
 "metrics": [{
   "name": "sys.cpu.load",
   "tags": {"host": ["web-1","web-2"]},
   "limit": 0,
   "aggregators": [{"name":"avg","align_sampling":true,"sampling":{"value":"30","unit":"SECONDS"}}],
   "group_by": [{"name":"tag","tags":["host"]},
                {"name":"time","group_count":24,"range_size":{"value":"1","unit":"HOURS"}},
                {"name":"value","range_size":10}]}]}`;
        const time =
          '{"name":"time","range_size":{"value":1,"unit":"HOURS"},"group_count":24,"group":{"group_number":0}}';
        expect(exchange(await gw.call('POST', '/api/v1/datapoints/query', { body }))).toEqual(
          ok(
            '{"queries":[{"sample_size":5,"results":[' +
              `{"name":"sys.cpu.load","group_by":[${time},{"name":"value","range_size":10,"group":{"group_number":0}},{"name":"tag","tags":["host"],"group":{"host":"web-1"}},{"name":"type","type":"number"}],` +
              '"tags":{"dc":["eu"],"host":["web-1"]},"values":[[1714557600000,2],[1714557640000,5]]},' +
              `{"name":"sys.cpu.load","group_by":[${time},{"name":"value","range_size":10,"group":{"group_number":1}},{"name":"tag","tags":["host"],"group":{"host":"web-2"}},{"name":"type","type":"number"}],` +
              '"tags":{"dc":["eu"],"host":["web-2"]},"values":[[1714557605000,12],[1714557665000,14]]}]}]}',
          ),
        );
      });

      it("answers ArpNetworking/kairosdb-datasource's query (lower-case units, numeric sampling, align_end_time, no cache_time)", async () => {
        const gw = await start();
        await writeLoad(gw);
        const body = {
          start_absolute: T0,
          end_absolute: T0 + 3_600_000,
          metrics: [
            {
              name: 'sys.cpu.load',
              tags: { dc: ['eu'] },
              aggregators: [{ name: 'max', align_end_time: true, sampling: { value: 1, unit: 'minutes' } }],
              group_by: [{ name: 'tag', tags: ['host'] }],
            },
            {
              name: 'sys.cpu.load',
              aggregators: [{ name: 'count', align_sampling: true, sampling: { value: 1, unit: 'hours' } }],
            },
          ],
        };
        expect(exchange(await gw.call('POST', '/api/v1/datapoints/query', { body }))).toEqual(
          ok(
            '{"queries":[{"sample_size":5,"results":[' +
              '{"name":"sys.cpu.load","group_by":[{"name":"tag","tags":["host"],"group":{"host":"web-1"}},{"name":"type","type":"number"}],"tags":{"dc":["eu"],"host":["web-1"]},"values":[[1714557660000,5]]},' +
              '{"name":"sys.cpu.load","group_by":[{"name":"tag","tags":["host"],"group":{"host":"web-2"}},{"name":"type","type":"number"}],"tags":{"dc":["eu"],"host":["web-2"]},"values":[[1714557660000,12],[1714557720000,14]]}]},' +
              '{"sample_size":6,"results":[{"name":"sys.cpu.load","group_by":[{"name":"type","type":"number"}],"tags":{"dc":["eu","us"],"host":["web-1","web-2","web-3"]},"values":[[1714557600000,6]]}]}]}',
          ),
        );
      });

      it("budgets a request's metrics together: points read, points returned and answer bytes, each naming its setting", async () => {
        const one = { name: 'sys.cpu.load' };
        const body = { start_absolute: T0, end_absolute: T0 + 3_600_000, metrics: [one, one] };
        for (const [setting, value, message] of [
          ['MAX_REQUEST_POINTS_READ', '10', 'request exceeded its points read budget of 10 (MAX_REQUEST_POINTS_READ)'],
          ['MAX_REQUEST_POINTS', '10', 'request exceeded its points returned budget of 10 (MAX_REQUEST_POINTS)'],
        ] as const) {
          const gw = await start({ [setting]: value });
          await writeLoad(gw);
          // One metric reads and returns 6 points; two are over 10.
          expect(
            (await gw.call('POST', '/api/v1/datapoints/query', { body: { ...body, metrics: [one] } })).status,
          ).toBe(200);
          expect(exchange(await gw.call('POST', '/api/v1/datapoints/query', { body }))).toEqual(refused(422, message));
        }
        const gw = await start({ MAX_RESPONSE_BYTES: '1024' });
        await writeLoad(gw);
        const many = { ...body, metrics: Array.from({ length: 12 }, () => one) };
        expect(exchange(await gw.call('POST', '/api/v1/datapoints/query', { body: many }))).toEqual(
          refused(422, 'request exceeded its answer bytes budget of 1024 (MAX_RESPONSE_BYTES)'),
        );
      });

      // The limit goes into each partition read as in KairosDB, so the limited query reads 2 points of each host.
      it('keeps queries in request order with alias, exclude_tags, limit, order and regex tags; drops empty results', async () => {
        const gw = await start();
        await writeLoad(gw);
        const body = {
          start_absolute: T0,
          end_absolute: T0 + 3_600_000,
          metrics: [
            {
              name: 'sys.cpu.load',
              alias: 'newest two',
              tags: { host: 'regex:web-[12]' },
              order: 'desc',
              limit: 2,
              exclude_tags: true,
            },
            { name: 'no.such.metric' },
            { name: 'sys.cpu.load', tags: { host: ['web-3', 'regex:nothing.*'] } },
            {
              name: 'sys.cpu.load',
              tags: { host: 'web-1' },
              aggregators: [{ name: 'filter', filter_op: 'gte', threshold: 0 }],
            },
          ],
        };
        expect(exchange(await gw.call('POST', '/api/v1/datapoints/query', { body }))).toEqual(
          ok(
            '{"queries":[' +
              '{"sample_size":4,"results":[{"name":"sys.cpu.load","alias":"newest two","group_by":[{"name":"type","type":"number"}],"values":[[1714557665000,14],[1714557640000,5]]}]},' +
              '{"sample_size":0,"results":[]},' +
              '{"sample_size":1,"results":[{"name":"sys.cpu.load","group_by":[{"name":"type","type":"number"}],"tags":{"dc":["us"],"host":["web-3"]},"values":[[1714557601000,100]]}]},' +
              '{"sample_size":3,"results":[]}]}',
          ),
        );
      });

      it('renders longs with every digit, doubles, strings and gaps as KairosDB does', async () => {
        const gw = await start();
        const write = await gw.call('POST', '/api/v1/datapoints', {
          body: `[{"name": "v", "tags": {"k": "long"}, "datapoints": [[1, 9223372036854775807], [2, -9007199254740993], [3, 0]]},
                  {"name": "v", "tags": {"k": "double"}, "datapoints": [[1, 0.1], [2, 55.0], [3, 1.5e300], [4, -2.5e-7]]},
                  {"name": "v", "tags": {"k": "string"}, "datapoints": [[1, "say \\"hi\\"\\n"], [2, "héllo 🌍"]]}]`,
        });
        expect(write.status).toBe(204);
        const query = (tag: string, aggregators: unknown[] = []) => ({
          start_absolute: 0,
          end_absolute: 4,
          metrics: [{ name: 'v', tags: { k: tag }, aggregators, exclude_tags: true }],
        });
        expect((await gw.call('POST', '/api/v1/datapoints/query', { body: query('long') })).text).toBe(
          '{"queries":[{"sample_size":3,"results":[{"name":"v","group_by":[{"name":"type","type":"number"}],"values":[[1,9223372036854775807],[2,-9007199254740993],[3,0]]}]}]}',
        );
        expect((await gw.call('POST', '/api/v1/datapoints/query', { body: query('double') })).text).toBe(
          '{"queries":[{"sample_size":4,"results":[{"name":"v","group_by":[{"name":"type","type":"number"}],"values":[[1,0.1],[2,55],[3,1.5e+300],[4,-2.5e-7]]}]}]}',
        );
        expect((await gw.call('POST', '/api/v1/datapoints/query', { body: query('string') })).text).toBe(
          '{"queries":[{"sample_size":2,"results":[{"name":"v","group_by":[{"name":"type","type":"text"}],"values":[[1,"say \\"hi\\"\\n"],[2,"héllo 🌍"]]}]}]}',
        );
        const gaps = query('long', [
          { name: 'gaps', align_sampling: false, sampling: { value: 1, unit: 'milliseconds' } },
        ]);
        expect((await gw.call('POST', '/api/v1/datapoints/query', { body: gaps })).text).toBe(
          '{"queries":[{"sample_size":3,"results":[{"name":"v","group_by":[{"name":"type","type":"number"}],"values":[[0,null],[1,9223372036854775807],[2,-9007199254740993],[3,0],[4,null]]}]}]}',
        );
      });

      it('reads relative times back from now, and answers GET ?query= as POST', async () => {
        const gw = await start();
        const now = Date.now();
        const write = await gw.call('POST', '/api/v1/datapoints', {
          body: {
            name: 'rel',
            tags: { h: 'a' },
            datapoints: [
              [now - 10 * 86_400_000, 1],
              [now - 7_200_000, 2],
              [now + 3_600_000, 3],
            ],
          },
        });
        expect(write.status).toBe(204);
        const lastDay = { start_relative: { value: 1, unit: 'DAYS' }, metrics: [{ name: 'rel', exclude_tags: true }] };
        const expected = `{"queries":[{"sample_size":2,"results":[{"name":"rel","group_by":[{"name":"type","type":"number"}],"values":[[${now - 7_200_000},2],[${now + 3_600_000},3]]}]}]}`;
        expect(exchange(await gw.call('POST', '/api/v1/datapoints/query', { body: lastDay }))).toEqual(ok(expected));
        expect(
          exchange(
            await gw.call('GET', `/api/v1/datapoints/query?query=${encodeURIComponent(JSON.stringify(lastDay))}`),
          ),
        ).toEqual(ok(expected));
        const untilAnHourAgo = { ...lastDay, end_relative: { value: 1, unit: 'hours' } };
        expect((await gw.call('POST', '/api/v1/datapoints/query', { body: untilAnHourAgo })).json).toEqual({
          queries: [
            {
              sample_size: 1,
              results: [{ name: 'rel', group_by: [{ name: 'type', type: 'number' }], values: [[now - 7_200_000, 2]] }],
            },
          ],
        });
      });

      it.each<[string, unknown, string]>([
        [
          'malformed JSON',
          '{"start_absolute": 0, "metrics": [{"name": "m"]}',
          `request body is not valid JSON: unexpected "]", expected ',' or '}' at line 1, column 47`,
        ],
        [
          'an unknown aggregator',
          {
            start_absolute: 0,
            metrics: [
              { name: 'm' },
              {
                name: 'm',
                aggregators: [{ name: 'avg', sampling: { value: 1, unit: 'minutes' } }, { name: 'median' }],
              },
            ],
          },
          'query.metric[1].aggregators[1].name is not an aggregator (one of avg, count, dev, diff, div, filter, first, gaps, last, least_squares, max, min, percentile, rate, sampler, save_as, scale, score, sma, sum, trim) (got "median")',
        ],
        [
          'an unknown aggregator parameter',
          { start_absolute: 0, metrics: [{ name: 'm', aggregators: [{ name: 'div', factor: 2 }] }] },
          'query.metric[0].aggregators[0].factor is not a parameter of div (it takes divisor) (got 2)',
        ],
        [
          'a bad sampling unit',
          {
            start_absolute: 0,
            metrics: [{ name: 'm', aggregators: [{ name: 'sum', sampling: { value: '5', unit: 'fortnights' } }] }],
          },
          'query.metric[0].aggregators[0].sampling.unit must be one of milliseconds, seconds, minutes, hours, days, weeks, months, years (got "fortnights")',
        ],
        [
          'an unknown group-by',
          { start_absolute: 0, metrics: [{ name: 'm', group_by: [{ name: 'host' }] }] },
          'query.metric[0].group_by[0].name is not a group-by (one of bin, series, tag, time, value) (got "host")',
        ],
        [
          'a missing start time',
          { end_absolute: 5, metrics: [{ name: 'm' }] },
          'query.start_absolute or query.start_relative must be set (got undefined)',
        ],
        [
          'an end before the start',
          { start_absolute: 10, end_absolute: 5, metrics: [{ name: 'm' }] },
          'query.end_absolute must not be before the start time 10 (got 5)',
        ],
        [
          'an empty tag value',
          { start_absolute: 0, metrics: [{ name: 'm', tags: { host: ['web-1', ''] } }] },
          'query.metric[0].tags.host[1] must be a non-empty string (got "")',
        ],
        [
          'an empty metric name',
          { start_absolute: 0, metrics: [{ name: '' }] },
          'query.metric[0].name must not be empty (got "")',
        ],
        [
          'no metrics',
          { start_absolute: 0, metrics: [] },
          'query.metrics must be a non-empty array of metric queries (got [])',
        ],
      ])('refuses %s with 400, naming the field', async (_, body, message) => {
        const gw = await start();
        expect(exchange(await gw.call('POST', '/api/v1/datapoints/query', { body }))).toEqual(refused(400, message));
      });

      it('refuses GET without ?query= or with bad JSON in it', async () => {
        const gw = await start();
        expect(exchange(await gw.call('GET', '/api/v1/datapoints/query'))).toEqual(
          refused(400, 'query is required: the query JSON, URL-encoded (got null)'),
        );
        expect(exchange(await gw.call('GET', '/api/v1/datapoints/query?query=%7B'))).toEqual(
          refused(
            400,
            'the query parameter is not valid JSON: unexpected end of input, expected a property name in double quotes at line 1, column 2',
          ),
        );
      });

      it('validates every metric before running any, so a refused request saves nothing through save_as', async () => {
        const gw = await start();
        await writeLoad(gw);
        const body = {
          start_absolute: T0,
          metrics: [
            { name: 'sys.cpu.load', aggregators: [{ name: 'save_as', metric_name: 'copy' }] },
            {
              name: 'sys.cpu.load',
              aggregators: [{ name: 'percentile', percentile: 2, sampling: { value: 1, unit: 'minutes' } }],
            },
          ],
        };
        expect(exchange(await gw.call('POST', '/api/v1/datapoints/query', { body }))).toEqual(
          refused(400, 'query.metric[1].aggregators[0].percentile must be greater than 0 and at most 1 (got 2)'),
        );
        expect((await gw.call('GET', '/api/v1/metricnames')).json).toEqual({ results: ['sys.cpu.load'] });
      });

      it('names the metric of an error the engine finds while running', async () => {
        const gw = await start();
        const write = await gw.call('POST', '/api/v1/datapoints', {
          body: [
            { name: 'dup', tags: { h: 'a' }, datapoints: [[5, 1]] },
            { name: 'dup', tags: { h: 'b' }, datapoints: [[5, 2]] },
          ],
        });
        expect(write.status).toBe(204);
        const body = {
          start_absolute: 0,
          metrics: [
            { name: 'dup', tags: { h: 'a' } },
            { name: 'dup', aggregators: [{ name: 'rate', unit: 'seconds' }] },
          ],
        };
        const answer = await gw.call('POST', '/api/v1/datapoints/query', { body });
        expect(answer.status).toBe(400);
        expect((answer.json as { errors: string[] }).errors[0]).toMatch(/^query\.metric\[1\]\.aggregators\[0\] /);
      });
    });

    describe('POST /datapoints/query/tags', () => {
      it("answers grafana/kairosdb-datasource's autocomplete body and ArpNetworking's ranged, filtered one", async () => {
        const gw = await start();
        const write = await gw.call('POST', '/api/v1/datapoints', {
          body: [
            { name: 'sys.cpu.load', tags: { host: 'web-1', dc: 'eu' }, datapoints: [[T0, 1]] },
            { name: 'sys.cpu.load', tags: { host: 'web-2', dc: 'eu', rack: 'r1' }, datapoints: [[T0 + 1000, 1]] },
            { name: 'sys.cpu.load', tags: { host: 'web-3', dc: 'us' }, datapoints: [[T0 + 90 * 86_400_000, 1]] },
            { name: 'sys.mem', tags: { host: 'db-1' }, datapoints: [[T0, 1]] },
          ],
        });
        expect(write.status).toBe(204);
        const grafana = '{"cache_time":0,"start_absolute":0,"metrics":[{"name":"sys.cpu.load","tags":{}}]}';
        expect(exchange(await gw.call('POST', '/api/v1/datapoints/query/tags', { body: grafana }))).toEqual(
          ok(
            '{"queries":[{"results":[{"name":"sys.cpu.load","tags":{"dc":["eu","us"],"host":["web-1","web-2","web-3"],"rack":["r1"]},"values":[]}]}]}',
          ),
        );
        const arp = {
          start_absolute: T0 - 86_400_000,
          end_absolute: T0 + 3_600_000,
          metrics: [{ name: 'sys.cpu.load', tags: { dc: ['eu'] } }, { name: 'nothing' }],
        };
        expect(exchange(await gw.call('POST', '/api/v1/datapoints/query/tags', { body: arp }))).toEqual(
          ok(
            '{"queries":[{"results":[{"name":"sys.cpu.load","tags":{"dc":["eu"],"host":["web-1","web-2"],"rack":["r1"]},"values":[]}]},' +
              '{"results":[{"name":"nothing","tags":{},"values":[]}]}]}',
          ),
        );
        expect(
          exchange(
            await gw.call('POST', '/api/v1/datapoints/query/tags', { body: { metrics: [{ name: 'sys.mem' }] } }),
          ),
        ).toEqual(refused(400, 'query.start_absolute or query.start_relative must be set (got undefined)'));
      });

      it('reads only the latest REST_TAGS_ROW_PERIODS row periods with data, even from start_absolute 0', async () => {
        // The loaders read a metric's row periods together (rowKeysAt): what is bounded is the periods read.
        let rowPeriodsRead = 0;
        const gw = await start({ REST_TAGS_ROW_PERIODS: '3' }, { rowWidth: 1000 }, (store) =>
          proxy(store, 'rowKeysAt', (original, args) => {
            rowPeriodsRead += (args[1] as readonly number[]).length;
            return original(...args);
          }),
        );
        const write = await gw.call('POST', '/api/v1/datapoints', {
          body: Array.from({ length: 10 }, (_, k) => ({
            name: 'spread',
            tags: { host: `h${k}` },
            datapoints: [[k * 1000 + 500, k]],
          })),
        });
        expect(write.status).toBe(204);
        const tags = async (range: Record<string, number>) => {
          rowPeriodsRead = 0;
          const answer = await gw.call('POST', '/api/v1/datapoints/query/tags', {
            body: { ...range, metrics: [{ name: 'spread' }] },
          });
          return {
            hosts: (answer.json as { queries: { results: { tags: { host?: string[] } }[] }[] }).queries[0]!.results[0]!
              .tags.host,
            rowPeriodsRead,
          };
        };
        expect(await tags({ start_absolute: 0 })).toEqual({ hosts: ['h7', 'h8', 'h9'], rowPeriodsRead: 3 });
        expect(await tags({ start_absolute: 0, end_absolute: 4999 })).toEqual({
          hosts: ['h2', 'h3', 'h4'],
          rowPeriodsRead: 3,
        });
        expect(await tags({ start_absolute: 8200, end_absolute: 20_000 })).toEqual({
          hosts: ['h8', 'h9'],
          rowPeriodsRead: 2,
        });
      });
    });

    describe('deletes', () => {
      const writeRows = async (gw: RestGateway, metric: string) => {
        const write = await gw.call('POST', '/api/v1/datapoints', {
          body: ['a', 'b'].map((host) => ({
            name: metric,
            tags: { host },
            datapoints: [
              [500, 1],
              [1500, 2],
              [2500, 3],
              [3500, 4],
            ],
          })),
        });
        expect(write.status).toBe(204);
      };
      const valuesOf = async (gw: RestGateway, metric: string) => {
        const answer = await gw.call('POST', '/api/v1/datapoints/query', {
          body: { start_absolute: 0, metrics: [{ name: metric, group_by: [{ name: 'tag', tags: ['host'] }] }] },
        });
        return (
          answer.json as { queries: { results: { tags: { host: string[] }; values: number[][] }[] }[] }
        ).queries[0]!.results.map((r) => [r.tags.host[0], r.values]);
      };

      it('POST /datapoints/delete deletes the range of the matching series and keeps the metric name', async () => {
        const gw = await start({}, { rowWidth: 1000 });
        await writeRows(gw, 'del');
        const body = { start_absolute: 1000, end_absolute: 2999, metrics: [{ name: 'del', tags: { host: ['a'] } }] };
        expect(exchange(await gw.call('POST', '/api/v1/datapoints/delete', { body }))).toEqual(noContent);
        expect(await valuesOf(gw, 'del')).toEqual([
          [
            'a',
            [
              [500, 1],
              [3500, 4],
            ],
          ],
          [
            'b',
            [
              [500, 1],
              [1500, 2],
              [2500, 3],
              [3500, 4],
            ],
          ],
        ]);
        const partial = { start_absolute: 400, end_absolute: 600, metrics: [{ name: 'del' }] };
        expect(exchange(await gw.call('POST', '/api/v1/datapoints/delete', { body: partial }))).toEqual(noContent);
        expect(await valuesOf(gw, 'del')).toEqual([
          ['a', [[3500, 4]]],
          [
            'b',
            [
              [1500, 2],
              [2500, 3],
              [3500, 4],
            ],
          ],
        ]);
        expect((await gw.call('GET', '/api/v1/metricnames')).json).toEqual({ results: ['del'] });
        expect(
          exchange(
            await gw.call('POST', '/api/v1/datapoints/delete', {
              body: { start_absolute: 0, end_absolute: -1, metrics: [{ name: 'del' }] },
            }),
          ),
        ).toEqual(refused(400, 'query.end_absolute must not be before the start time 0 (got -1)'));
        expect(await valuesOf(gw, 'del')).toHaveLength(2);
      });

      it('DELETE /metric/{name} deletes all data and the name, percent-decoded', async () => {
        const gw = await start({}, { rowWidth: 1000 });
        await writeRows(gw, 'a/b c');
        await writeRows(gw, 'kept');
        expect(exchange(await gw.call('DELETE', '/api/v1/metric/a%2Fb%20c'))).toEqual(noContent);
        expect(await valuesOf(gw, 'a/b c')).toEqual([]);
        expect((await gw.call('GET', '/api/v1/metricnames')).json).toEqual({ results: ['kept'] });
        expect(await valuesOf(gw, 'kept')).toHaveLength(2);
        expect(exchange(await gw.call('DELETE', '/api/v1/metric/%E0%A4%A'))).toEqual(
          refused(400, 'metric is not valid percent-encoding (got "%E0%A4%A")'),
        );
      });
    });

    describe('metadata', () => {
      const path = (...parts: string[]) => `/api/v1/metadata/${parts.map(encodeURIComponent).join('/')}`;
      const text = (value: string) => ({
        status: 200,
        headers: { ...jsonHeaders(value), 'content-type': 'text/plain; charset=UTF-8' },
        text: value,
      });
      const raw = (value: string) => ({ status: 200, headers: jsonHeaders(value), text: value });
      // A value is answered as its own text, which need not be JSON.
      const getValue = async (gw: RestGateway, at: string, headers: Record<string, string> = {}) =>
        exchange(await callRest(gw.url, 'GET', at, { headers }, true));

      it('sets, lists, reads and deletes values as KairosDB does, any text in names and values', async () => {
        const gw = await start();
        for (const [serviceKey, key, value] of [
          ['hosts', 'web-1', '{"rack": "r1"}'],
          ['hosts', 'web-2', 'not JSON at all'],
          ['hosts', 'db/1 ✓', ''],
          ['teams', 'ops', 'pager'],
        ]) {
          // text/plain alone could be another site's form: it takes a header a form cannot send (COMPATIBILITY.md).
          expect(
            exchange(
              await gw.call('POST', path('inventory', serviceKey!, key!), {
                body: value!,
                headers: { 'content-type': 'text/plain', 'x-requested-with': 'kairosdb-client' },
              }),
            ),
          ).toEqual(noContent);
        }
        const form = await gw.call('POST', path('inventory', 'hosts', 'web-3'), {
          body: 'x',
          headers: { 'content-type': 'text/plain' },
        });
        expect([form.status, form.json]).toEqual([
          403,
          {
            errors: [
              "POST /api/v1/metadata/{service}/{serviceKey}/{key} needs Content-Type: application/json (curl: -H 'Content-Type: application/json') or a header a form cannot send (x-kairograph-token, x-requested-with): a form or text/plain body, or none, could be a cross-site request sent with the browser's credentials",
            ],
          },
        ]);
        expect(exchange(await gw.call('GET', path('inventory')))).toEqual(ok('{"results":["hosts","teams"]}'));
        expect(exchange(await gw.call('GET', path('inventory', 'hosts')))).toEqual(
          ok('{"results":["db/1 ✓","web-1","web-2"]}'),
        );
        expect(exchange(await gw.call('GET', `${path('inventory', 'hosts')}?startsWith=web`))).toEqual(
          ok('{"results":["web-1","web-2"]}'),
        );
        expect(exchange(await gw.call('GET', `${path('inventory', 'hosts')}?startsWith=zzz`))).toEqual(
          ok('{"results":[]}'),
        );
        expect(await getValue(gw, path('inventory', 'hosts', 'web-1'))).toEqual(raw('{"rack": "r1"}'));
        expect(await getValue(gw, path('inventory', 'hosts', 'web-2'))).toEqual(raw('not JSON at all'));
        expect(await getValue(gw, path('inventory', 'hosts', 'web-2'), { accept: 'text/plain' })).toEqual(
          text('not JSON at all'),
        );
        expect(await getValue(gw, path('inventory', 'hosts', 'db/1 ✓'))).toEqual({
          status: 200,
          headers: { ...NO_CONTENT_HEADERS, 'content-length': '0', 'content-type': 'application/json; charset=UTF-8' },
          text: '',
        });
        expect(await getValue(gw, path('inventory', 'hosts', 'nobody'))).toEqual(refused(404, 'Key not found'));
        expect(await getValue(gw, path('inventory', 'hosts', 'nobody'), { accept: 'text/plain' })).toEqual({
          status: 404,
          headers: { ...NO_CONTENT_HEADERS, 'content-length': '0' },
          text: '',
        });

        expect(exchange(await gw.call('DELETE', path('inventory', 'teams', 'ops')))).toEqual(noContent);
        expect(exchange(await gw.call('DELETE', path('inventory', 'teams', 'never set')))).toEqual(noContent);
        expect(exchange(await gw.call('GET', path('inventory')))).toEqual(ok('{"results":["hosts"]}'));
        expect(exchange(await gw.call('GET', path('inventory', 'teams')))).toEqual(ok('{"results":[]}'));
      });

      it("refuses KairosDB's own services, changes to the gateway's own, and names that cannot be keys, changing nothing", async () => {
        const gw = await start();
        const rollups =
          "service starts with '_': such services are KairosDB's own (roll-up tasks, hosts), which the metadata API does not serve (got \"_Rollups\")";
        expect(exchange(await gw.call('GET', path('_Rollups')))).toEqual(refused(400, rollups));
        expect(exchange(await gw.call('POST', path('_Rollups', 'Config', 'x'), { body: '{}' }))).toEqual(
          refused(400, rollups),
        );
        const own =
          'service is the gateway\'s own (since when each tag index is complete): it may be read, not changed (got "kairograph")';
        expect(exchange(await gw.call('POST', path('kairograph', 'tag_index_since', 'x'), { body: '1' }))).toEqual(
          refused(400, own),
        );
        expect(exchange(await gw.call('DELETE', path('kairograph', 'tag_index_since', 'x')))).toEqual(
          refused(400, own),
        );
        expect(exchange(await gw.call('GET', path('kairograph', 'tag_index_since')))).toEqual(ok('{"results":[]}'));
        expect(exchange(await gw.call('GET', '/api/v1/metadata/s/%E0%A4%A'))).toEqual(
          refused(400, 'serviceKey is not valid percent-encoding (got "%E0%A4%A")'),
        );
        // Past either store's key size (a URL that long is refused before any route, so this goes through GraphQL).
        const tooLong = await gw.graphql(
          'mutation Set($key: String!) { setMetadata(service: "s", serviceKey: "sk", key: $key, value: "v") { value } }',
          { key: 'k'.repeat(70_000) },
        );
        expect(tooLong.body).toMatchObject({
          errors: [
            {
              message: expect.stringMatching(
                /^key makes the service, service key and key 70003 bytes of UTF-8 together, over the store's \d+ \(got "k{10}/,
              ),
              extensions: { code: 'BAD_USER_INPUT' },
            },
          ],
        });
        expect(exchange(await gw.call('GET', path('s')))).toEqual(ok('{"results":[]}'));
        expect(exchange(await gw.call('PUT', path('s', 'sk', 'k')))).toEqual(
          refused(
            405,
            `PUT is not allowed on ${path('s', 'sk', 'k')} (GET, POST, DELETE, OPTIONS)`,
            { allow: 'GET, POST, DELETE, OPTIONS' },
            false,
          ),
        );
      });

      it('is the same metadata through GraphQL, both ways', async () => {
        const gw = await start();
        expect(exchange(await gw.call('POST', path('dash', 'panels', 'cpu'), { body: '{"title": "CPU"}' }))).toEqual(
          noContent,
        );
        const set = await gw.graphql(
          `mutation { setMetadata(service: "dash", serviceKey: "panels", key: "mem", value: "{\\"title\\": \\"Memory\\"}") { value writtenMs } }`,
        );
        const writtenMs = (set.body as { data: { setMetadata: { writtenMs: number } } }).data.setMetadata.writtenMs;
        expect(set.body).toEqual({ data: { setMetadata: { value: '{"title": "Memory"}', writtenMs } } });
        expect(Math.abs(writtenMs - Date.now())).toBeLessThan(60_000);
        const read = await gw.graphql(
          `{ metadata(service: "dash") { service serviceKeys keys(serviceKey: "panels") m: keys(serviceKey: "panels", startsWith: "m") cpu: value(serviceKey: "panels", key: "cpu") { value } none: value(serviceKey: "panels", key: "none") { value } } }`,
        );
        expect(read.body).toEqual({
          data: {
            metadata: {
              service: 'dash',
              serviceKeys: ['panels'],
              keys: ['cpu', 'mem'],
              m: ['mem'],
              cpu: { value: '{"title": "CPU"}' },
              none: null,
            },
          },
        });
        expect(await getValue(gw, path('dash', 'panels', 'mem'))).toEqual(raw('{"title": "Memory"}'));
        expect(
          (await gw.graphql(`mutation { deleteMetadata(service: "dash", serviceKey: "panels", key: "cpu") }`)).body,
        ).toEqual({ data: { deleteMetadata: true } });
        expect(exchange(await gw.call('GET', path('dash', 'panels')))).toEqual(ok('{"results":["mem"]}'));
        const refusedRead = await gw.graphql(`{ metadata(service: "_Hosts") { serviceKeys } }`);
        expect(refusedRead.status).toBe(400);
        expect(refusedRead.body).toMatchObject({
          errors: [
            {
              message:
                "service starts with '_': such services are KairosDB's own (roll-up tasks, hosts), which the metadata API does not serve (got \"_Hosts\")",
              extensions: { code: 'BAD_USER_INPUT' },
            },
          ],
        });
        const empty = await gw.graphql(
          `mutation { setMetadata(service: "dash", serviceKey: "", key: "k", value: "v") { value } }`,
        );
        expect(empty.body).toMatchObject({
          errors: [{ message: 'serviceKey must not be empty (got "")', extensions: { code: 'BAD_USER_INPUT' } }],
        });
      });
    });

    describe('one engine behind both front ends', () => {
      it('shows points written through REST to GraphQL, and points written through GraphQL to REST', async () => {
        const gw = await start();
        const rest = await gw.call('POST', '/api/v1/datapoints', {
          body: '{"name": "both", "tags": {"via": "rest"}, "datapoints": [[1000, 9007199254740993], [2000, 2.5]]}',
        });
        expect(rest.status).toBe(204);
        const graphqlWrite = await gw.graphql(
          `mutation { addPoints(series: [{ metric: "both", tags: [{ name: "via", value: "graphql" }], type: LONG, points: [{ time: 1500, value: 7 }] }]) { points } }`,
        );
        expect(graphqlWrite.body).toEqual({ data: { addPoints: { points: 1 } } });

        const read = await gw.graphql(GRAPHQL_POINTS, { metric: 'both', from: 0, where: [{ tag: 'via', eq: 'rest' }] });
        expect(read.body).toEqual({
          data: {
            points: [
              {
                metric: 'both',
                tags: [{ name: 'via', values: ['rest'] }],
                points: [
                  { epochMs: 1000, value: 9007199254740992, long: '9007199254740993', text: null, type: 'LONG' },
                  { epochMs: 2000, value: 2.5, long: null, text: null, type: 'DOUBLE' },
                ],
              },
            ],
          },
        });
        const query = {
          start_absolute: 0,
          metrics: [
            {
              name: 'both',
              group_by: [{ name: 'tag', tags: ['via'] }],
              aggregators: [{ name: 'count', align_sampling: false, sampling: { value: 1, unit: 'hours' } }],
            },
          ],
        };
        expect(
          (
            await gw.call('POST', '/api/v1/datapoints/query', {
              body: { start_absolute: 0, metrics: [{ name: 'both', tags: { via: 'graphql' } }] },
            })
          ).text,
        ).toBe(
          '{"queries":[{"sample_size":1,"results":[{"name":"both","group_by":[{"name":"type","type":"number"}],"tags":{"via":["graphql"]},"values":[[1500,7]]}]}]}',
        );
        expect((await gw.call('POST', '/api/v1/datapoints/query', { body: query })).json).toEqual({
          queries: [
            {
              sample_size: 3,
              results: [
                {
                  name: 'both',
                  group_by: [
                    { name: 'tag', tags: ['via'], group: { via: 'graphql' } },
                    { name: 'type', type: 'number' },
                  ],
                  tags: { via: ['graphql'] },
                  values: [[1500, 1]],
                },
                {
                  name: 'both',
                  group_by: [
                    { name: 'tag', tags: ['via'], group: { via: 'rest' } },
                    { name: 'type', type: 'number' },
                  ],
                  tags: { via: ['rest'] },
                  values: [[1000, 2]],
                },
              ],
            },
          ],
        });
        const deleted = await gw.graphql(
          `mutation { deletePoints(metric: "both", from: 0, to: 1999, where: [{ tag: "via", eq: "rest" }]) { series partitionsDeleted rangesDeleted } }`,
        );
        // The REST series holds a long and a double partition; each is one series of the store (type and tags).
        expect(deleted.body).toEqual({ data: { deletePoints: { series: 2, partitionsDeleted: 0, rangesDeleted: 2 } } });
        expect(
          (
            await gw.call('POST', '/api/v1/datapoints/query', {
              body: { start_absolute: 0, metrics: [{ name: 'both', tags: { via: 'rest' } }] },
            })
          ).text,
        ).toBe(
          '{"queries":[{"sample_size":1,"results":[{"name":"both","group_by":[{"name":"type","type":"number"}],"tags":{"via":["rest"]},"values":[[2000,2.5]]}]}]}',
        );
      });
    });
  });
}

/** The store with one method failing as an unexpected error would (not a Kairograph error). */
function failing(store: Store, method: keyof Store, message: string): Store {
  return proxy(store, method, async () => {
    throw new Error(message);
  });
}

/** The store with one method counted. */
function proxy(
  store: Store,
  method: keyof Store,
  replacement: (original: (...args: unknown[]) => unknown, args: unknown[]) => unknown,
): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(target);
      return property === method ? (...args: unknown[]) => replacement(bound, args) : bound;
    },
  });
}
