/**
 * Hostile input over real HTTP, on REST and GraphQL alike, written once and run against every store: tag names that
 * are Object's members, times at and past ±8.64e15 ms, aggregates that overflow, and names and series too large for
 * the store's keys, refused with a 400 that names the field and the limit and leaves nothing written.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import type { KeyLimits } from '../../src/model/key-limits.js';
import {
  jsonHeaders,
  NO_CONTENT_HEADERS,
  startRestGateway,
  type RestGateway,
  type RestResponse,
} from './rest-client.js';

/** Makes a fresh, empty store; the suite closes it. */
export type HygieneStoreFactory = () => Promise<Store>;

const RULE = 'must be a time in whole epoch milliseconds from -8640000000000000 to 8640000000000000';
const BOUNDARY =
  'puts a range boundary outside -8640000000000000 to 8640000000000000 epoch ms, where no time can be computed or answered';

/** `bytes` UTF-8 bytes of two-byte characters (and one `a` for an odd count), so sizes are counted in bytes, not characters. */
function nameOf(bytes: number): string {
  return 'é'.repeat(Math.floor(bytes / 2)) + (bytes % 2 === 1 ? 'a' : '');
}

/** What model/errors.ts `show` prints for a rejected value: its JSON, cut to 117 characters and `...` beyond 120. */
function shown(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** Tags in the order validation keeps them (sorted by name), which is how errors show them. */
function sortedTags(tags: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `expected` is what the store's `limits` must be: the numbers its key layouts allow. */
export function describeInputHygiene(storeName: string, createStore: HygieneStoreFactory, expected: KeyLimits): void {
  describe(`input hygiene over the ${storeName} store`, () => {
    const opened: { store: Store; gateway: RestGateway }[] = [];
    afterEach(async () => {
      for (const { store, gateway } of opened.splice(0)) {
        await gateway.close();
        await store.close();
      }
    });
    const start = async (env: Record<string, string> = {}) => {
      const store = await createStore();
      const gateway = await startRestGateway(store, env);
      opened.push({ store, gateway });
      return { store, gw: gateway };
    };
    const exchange = (r: RestResponse) => ({ status: r.status, headers: r.headers, text: r.text });
    const ok = (text: string) => ({ status: 200, headers: jsonHeaders(text), text });
    const refused = (message: string) => {
      const text = JSON.stringify({ errors: [message] });
      return { status: 400, headers: jsonHeaders(text), text };
    };
    const noContent = { status: 204, headers: NO_CONTENT_HEADERS, text: '' };
    const post = (gw: RestGateway, path: string, body: unknown) => gw.call('POST', `/api/v1${path}`, { body });
    /** A GraphQL answer as status, data and each error's message, path and extensions. */
    const graphql = async (gw: RestGateway, query: string, variables?: Record<string, unknown>) => {
      const r = await gw.graphql(query, variables);
      return {
        status: r.status,
        data: r.body.data,
        errors: r.body.errors?.map(({ message, path, extensions }) => ({ message, path, extensions })),
      };
    };
    const badInput = (field: string, message: string, path: string) => ({
      status: 400,
      data: null,
      errors: [{ message, path: [path], extensions: { code: 'BAD_USER_INPUT', field } }],
    });
    const nothingWritten = async (gw: RestGateway) => {
      expect(exchange(await gw.call('GET', '/api/v1/metricnames'))).toEqual(ok('{"results":[]}'));
      expect(await graphql(gw, '{ metricNames }')).toEqual({
        status: 200,
        data: { metricNames: [] },
        errors: undefined,
      });
    };

    describe("tag names that are Object's members are ordinary names", () => {
      // Computed keys: in an object literal `__proto__: v` sets the prototype (or nothing) instead of a property.
      const write = async (gw: RestGateway) => {
        const written = await post(gw, '/datapoints', [
          { name: 'odd', tags: { ['__proto__']: 'x', h: 'y' }, datapoints: [[1000, 1]] },
          // Alone it used to vanish, leaving "must hold at least one tag".
          { name: 'odd', tags: { ['__proto__']: 'z' }, datapoints: [[2000, 2]] },
          {
            name: 'odd',
            tags: { constructor: 'c', toString: 't', hasOwnProperty: 'o', valueOf: 'v' },
            datapoints: [[3000, 3]],
          },
        ]);
        expect(exchange(written)).toEqual(noContent);
      };

      it('keeps them through REST ingest, query with tag filters and group-bys, and query/tags', async () => {
        const { gw } = await start();
        await write(gw);
        const query = {
          start_absolute: 0,
          metrics: <Record<string, unknown>[]>[
            { name: 'odd', tags: { ['__proto__']: ['x', 'z'] }, group_by: [{ name: 'tag', tags: ['__proto__'] }] },
            { name: 'odd', tags: { constructor: 'c' } },
            { name: 'odd', group_by: [{ name: 'tag', tags: ['constructor'] }] },
          ],
        };
        const type = '{"name":"type","type":"number"}';
        expect(exchange(await post(gw, '/datapoints/query', query))).toEqual(
          ok(
            '{"queries":[' +
              '{"sample_size":2,"results":[' +
              `{"name":"odd","group_by":[{"name":"tag","tags":["__proto__"],"group":{"__proto__":"x"}},${type}],"tags":{"__proto__":["x"],"h":["y"]},"values":[[1000,1]]},` +
              `{"name":"odd","group_by":[{"name":"tag","tags":["__proto__"],"group":{"__proto__":"z"}},${type}],"tags":{"__proto__":["z"]},"values":[[2000,2]]}]},` +
              `{"sample_size":1,"results":[{"name":"odd","group_by":[${type}],"tags":{"constructor":["c"],"hasOwnProperty":["o"],"toString":["t"],"valueOf":["v"]},"values":[[3000,3]]}]},` +
              '{"sample_size":3,"results":[' +
              // A series without the tag joins the group of "" (KairosDB's rule), not the group of Object's constructor.
              `{"name":"odd","group_by":[{"name":"tag","tags":["constructor"],"group":{"constructor":""}},${type}],"tags":{"__proto__":["x","z"],"h":["y"]},"values":[[1000,1],[2000,2]]},` +
              `{"name":"odd","group_by":[{"name":"tag","tags":["constructor"],"group":{"constructor":"c"}},${type}],"tags":{"constructor":["c"],"hasOwnProperty":["o"],"toString":["t"],"valueOf":["v"]},"values":[[3000,3]]}]}]}`,
          ),
        );
        expect(
          exchange(await post(gw, '/datapoints/query/tags', { start_absolute: 0, metrics: [{ name: 'odd' }] })),
        ).toEqual(
          ok(
            '{"queries":[{"results":[{"name":"odd","tags":{"__proto__":["x","z"],"constructor":["c"],"h":["y"],"hasOwnProperty":["o"],"toString":["t"],"valueOf":["v"]},"values":[]}]}]}',
          ),
        );
      });

      it('keeps them through GraphQL tagNames, tagValues, seriesKeys, points and series', async () => {
        const { gw } = await start();
        await write(gw);
        const answer = await graphql(
          gw,
          `query ($m: String!) {
            tagNames(metric: $m, from: 0, to: 10000)
            proto: tagValues(metric: $m, tag: "__proto__", from: 0, to: 10000)
            ctor: tagValues(metric: $m, tag: "constructor", from: 0, to: 10000)
            absent: tagValues(metric: $m, tag: "isPrototypeOf", from: 0, to: 10000)
            seriesKeys(metric: $m, from: 0, to: 10000) { tags { name value } proto: tag(name: "__proto__") ctor: tag(name: "constructor") }
            points(metric: $m, from: 0, to: 10000, where: [{ tag: "__proto__", in: ["x", "z"] }]) { tags { name values } proto: tag(name: "__proto__") points { epochMs value } }
            series(metric: $m, from: 0, to: 10000, groupBy: { tags: ["constructor"] }) {
              tags { name values } group { kind tags { name value } } ctor: tag(name: "constructor") points { epochMs value }
            }
          }`,
          { m: 'odd' },
        );
        const tags = (entries: Record<string, string>) =>
          Object.entries(entries).map(([name, value]) => ({ name, value }));
        const ctorTags = { constructor: 'c', hasOwnProperty: 'o', toString: 't', valueOf: 'v' };
        expect(answer).toEqual({
          status: 200,
          errors: undefined,
          data: {
            tagNames: ['__proto__', 'constructor', 'h', 'hasOwnProperty', 'toString', 'valueOf'],
            proto: ['x', 'z'],
            ctor: ['c'],
            absent: [],
            seriesKeys: [
              { tags: tags({ ['__proto__']: 'x', h: 'y' }), proto: 'x', ctor: null },
              { tags: tags({ ['__proto__']: 'z' }), proto: 'z', ctor: null },
              { tags: tags(ctorTags), proto: null, ctor: 'c' },
            ],
            points: [
              {
                tags: [
                  { name: '__proto__', values: ['x'] },
                  { name: 'h', values: ['y'] },
                ],
                proto: 'x',
                points: [{ epochMs: 1000, value: 1 }],
              },
              { tags: [{ name: '__proto__', values: ['z'] }], proto: 'z', points: [{ epochMs: 2000, value: 2 }] },
            ],
            series: [
              {
                tags: [
                  { name: '__proto__', values: ['x', 'z'] },
                  { name: 'h', values: ['y'] },
                ],
                group: [
                  { kind: 'TAG', tags: [{ name: 'constructor', value: '' }] },
                  { kind: 'TYPE', tags: null },
                ],
                ctor: null,
                points: [
                  { epochMs: 1000, value: 1 },
                  { epochMs: 2000, value: 2 },
                ],
              },
              {
                tags: Object.entries(ctorTags).map(([name, value]) => ({ name, values: [value] })),
                group: [
                  { kind: 'TAG', tags: [{ name: 'constructor', value: 'c' }] },
                  { kind: 'TYPE', tags: null },
                ],
                ctor: 'c',
                points: [{ epochMs: 3000, value: 3 }],
              },
            ],
          },
        });
      });

      it('keeps them through GraphQL addPoints, save_as, and deletes on both front ends', async () => {
        const { gw } = await start();
        await write(gw);
        const added = await graphql(
          gw,
          'mutation { addPoints(series: [{ metric: "odd", tags: [{ name: "__proto__", value: "g" }, { name: "toString", value: "s" }], type: LONG, points: [{ time: 4000, value: 4 }] }]) { series points } }',
        );
        expect(added).toEqual({ status: 200, errors: undefined, data: { addPoints: { series: 1, points: 1 } } });
        const saveAs = { name: 'save_as', metric_name: 'odd.copy', tags: { ['__proto__']: 'saved', constructor: 'k' } };
        const saved = await post(gw, '/datapoints/query', {
          start_absolute: 0,
          metrics: [{ name: 'odd', tags: { ['__proto__']: 'g' }, aggregators: [saveAs] }],
        });
        expect(saved.status).toBe(200);
        expect(
          (await post(gw, '/datapoints/query/tags', { start_absolute: 0, metrics: [{ name: 'odd.copy' }] })).text,
        ).toBe(
          '{"queries":[{"results":[{"name":"odd.copy","tags":{"__proto__":["saved"],"constructor":["k"],"saved_from":["odd"]},"values":[]}]}]}',
        );

        expect(
          exchange(
            await post(gw, '/datapoints/delete', {
              start_absolute: 0,
              metrics: [{ name: 'odd', tags: { ['__proto__']: ['x'] } }],
            }),
          ),
        ).toEqual(noContent);
        // Whole partitions, so their row_keys entries go too and query/tags no longer lists their tags.
        const deleted = await graphql(
          gw,
          'mutation { deletePoints(metric: "odd", from: 0, to: "8640000000000000", where: [{ tag: "constructor", eq: "c" }]) { series partitionsDeleted } }',
        );
        expect(deleted).toEqual({
          status: 200,
          errors: undefined,
          data: { deletePoints: { series: 1, partitionsDeleted: 1 } },
        });
        expect((await post(gw, '/datapoints/query/tags', { start_absolute: 0, metrics: [{ name: 'odd' }] })).text).toBe(
          '{"queries":[{"results":[{"name":"odd","tags":{"__proto__":["g","z"],"toString":["s"]},"values":[]}]}]}',
        );
      });
    });

    describe('times: one rule on every path', () => {
      it('stores and answers the two ends of ±8.64e15 ms on both front ends', async () => {
        const { gw } = await start();
        expect(
          exchange(
            await post(
              gw,
              '/datapoints',
              '{"name": "edge", "tags": {"h": "a"}, "datapoints": [[-8640000000000000, 1], ["8640000000000000", 2]]}',
            ),
          ),
        ).toEqual(noContent);
        expect(
          exchange(
            await post(gw, '/datapoints/query', { start_absolute: -8640000000000000, metrics: [{ name: 'edge' }] }),
          ),
        ).toEqual(
          ok(
            '{"queries":[{"sample_size":2,"results":[{"name":"edge","group_by":[{"name":"type","type":"number"}],"tags":{"h":["a"]},"values":[[-8640000000000000,1],[8640000000000000,2]]}]}]}',
          ),
        );
        const read = await graphql(
          gw,
          '{ points(metric: "edge", from: "-8640000000000000", to: "8640000000000000") { points { time epochMs } } }',
        );
        expect(read).toEqual({
          status: 200,
          errors: undefined,
          data: {
            points: [
              {
                points: [
                  { time: '-271821-04-20T00:00:00.000Z', epochMs: -8640000000000000 },
                  { time: '+275760-09-13T00:00:00.000Z', epochMs: 8640000000000000 },
                ],
              },
            ],
          },
        });
      });

      it.each<[string, string, string]>([
        [
          'a timestamp past 8.64e15',
          '{"name": "far", "tags": {"h": "a"}, "datapoints": [[8640000000000000, 1], [8640000000000001, 2]]}',
          `metric[0].datapoints[1].timestamp ${RULE} (got 8640000000000001)`,
        ],
        [
          'a timestamp as text before -8.64e15',
          '{"name": "far", "tags": {"h": "a"}, "timestamp": "-8640000000000001", "value": 1}',
          `metric[0].timestamp ${RULE} (got "-8640000000000001")`,
        ],
        [
          'a timestamp in exponent form past 8.64e15',
          '[{"name": "ok", "tags": {"h": "a"}, "time": 1, "value": 1}, {"name": "far", "tags": {"h": "a"}, "time": 9e15, "value": 1}]',
          `metric[1].time ${RULE} (got 9000000000000000)`,
        ],
      ])('refuses %s on REST ingest and writes nothing', async (_, body, message) => {
        const { gw } = await start();
        expect(exchange(await post(gw, '/datapoints', body))).toEqual(refused(message));
        await nothingWritten(gw);
      });

      it('refuses a time past 8.64e15 on GraphQL addPoints with the same rule, and writes nothing', async () => {
        const { gw } = await start();
        const series = [
          { metric: 'ok', tags: [{ name: 'h', value: 'a' }], points: [{ time: 1, value: 1 }] },
          { metric: 'far', tags: [{ name: 'h', value: 'a' }], points: [{ time: '8640000000000001', value: 1 }] },
        ];
        const answer = await graphql(
          gw,
          'mutation ($series: [SeriesPointsInput!]!) { addPoints(series: $series) { points } }',
          { series },
        );
        expect(answer).toEqual(
          badInput(
            'series[1].points[0].time',
            `series[1].points[0].time ${RULE} (got "8640000000000001")`,
            'addPoints',
          ),
        );
        await nothingWritten(gw);
      });

      it.each<[string, string, unknown, string]>([
        [
          'an absolute start before -8.64e15',
          '/datapoints/query',
          { start_absolute: -8640000000000001, metrics: [{ name: 'm' }] },
          `query.start_absolute ${RULE} (got -8640000000000001)`,
        ],
        [
          'an absolute end past 8.64e15',
          '/datapoints/query/tags',
          { start_absolute: 0, end_absolute: 8640000000000001, metrics: [{ name: 'm' }] },
          `query.end_absolute ${RULE} (got 8640000000000001)`,
        ],
        [
          'a relative start before -8.64e15',
          '/datapoints/delete',
          { start_relative: { value: 300_000, unit: 'years' }, metrics: [{ name: 'm' }] },
          `query.start_relative ${RULE} (got {"value":300000,"unit":"years"})`,
        ],
        [
          'an aggregator start_time past 8.64e15',
          '/datapoints/query',
          { start_absolute: 0, metrics: [{ name: 'm', aggregators: [{ name: 'sum', start_time: 8640000000000001 }] }] },
          `query.metric[0].aggregators[0].start_time ${RULE} (got 8640000000000001)`,
        ],
      ])('refuses %s on REST (%s)', async (_, path, body, message) => {
        const { gw } = await start();
        expect(exchange(await post(gw, path, body))).toEqual(refused(message));
      });

      it.each<[string, string, string, string]>([
        [
          'points from before -8.64e15',
          '{ points(metric: "m", from: "-8640000000000001") { metric } }',
          'from',
          `from ${RULE} (got "-8640000000000001")`,
        ],
        [
          'tagNames from past 8.64e15',
          '{ tagNames(metric: "m", from: 9e15) }',
          'from',
          `from ${RULE} (got 9000000000000000)`,
        ],
        [
          'a relative deletePoints end past 8.64e15',
          'mutation { deletePoints(metric: "m", from: 0, to: "now+300000y") { series } }',
          'to',
          `to ${RULE} (got "now+300000y")`,
        ],
      ])('refuses %s on GraphQL', async (_, query, field, message) => {
        const { gw } = await start();
        const path = query.includes('deletePoints')
          ? 'deletePoints'
          : query.includes('tagNames')
            ? 'tagNames'
            : 'points';
        expect(await graphql(gw, query)).toEqual(badInput(field, message, path));
      });

      it('answers a yearly sum over a point at 8.64e15, and refuses a range boundary past it that would be a point', async () => {
        const { gw } = await start();
        expect(
          (
            await post(gw, '/datapoints', {
              name: 'late',
              tags: { h: 'a' },
              datapoints: [
                [8640000000000000, 1],
                [8639999999999999, 1],
              ],
            })
          ).status,
        ).toBe(204);
        const yearly = (extra: Record<string, unknown>, start = 0) => ({
          start_absolute: start,
          metrics: [{ name: 'late', aggregators: [{ name: 'sum', sampling: { value: 1, unit: 'years' }, ...extra }] }],
        });
        const answer = (values: string) =>
          ok(
            `{"queries":[{"sample_size":2,"results":[{"name":"late","group_by":[{"name":"type","type":"number"}],"tags":{"h":["a"]},"values":${values}}]}]}`,
          );
        expect(exchange(await post(gw, '/datapoints/query', yearly({})))).toEqual(answer('[[8639999999999999,2]]'));
        // 275760-01-01, the start of the last year that has a start.
        expect(exchange(await post(gw, '/datapoints/query', yearly({ align_start_time: true })))).toEqual(
          answer('[[8639977881600000,2]]'),
        );
        expect(exchange(await post(gw, '/datapoints/query', yearly({ align_end_time: true })))).toEqual(
          refused(`query.metric[0].aggregators[0].sampling ${BOUNDARY} (got {"value":1,"unit":"years"})`),
        );
        // The year of the earliest time began before it: aligning the start there has no time either.
        expect(exchange(await post(gw, '/datapoints/query', yearly({}, -8640000000000000)))).toEqual(
          refused(`query.metric[0].aggregators[0].sampling ${BOUNDARY} (got {"value":1,"unit":"years"})`),
        );
        const gaps = await graphql(
          gw,
          '{ series(metric: "late", from: "-8640000000000000", to: 0, aggregators: [{ gaps: { sampling: { value: 1, unit: YEARS } } }]) { points { time } } }',
        );
        // GraphQL names its own argument for the engine's aggregators[0].sampling.
        expect(gaps).toEqual(
          badInput(
            'aggregators[0].gaps.sampling',
            `aggregators[0].gaps.sampling ${BOUNDARY} (got {"value":1,"unit":"years"})`,
            'series',
          ),
        );
      });
    });

    describe('aggregates that are not finite answer null', () => {
      it('on REST and on GraphQL, for sum, div, scale and rate past ±1.8e308', async () => {
        const { gw } = await start();
        expect(
          (
            await post(
              gw,
              '/datapoints',
              '{"name": "big", "tags": {"h": "a"}, "datapoints": [[1000, 1.7e308], [2000, 1.7e308], [3000, -1.7e308]]}',
            )
          ).status,
        ).toBe(204);
        const metric = (aggregator: Record<string, unknown>) => ({ name: 'big', aggregators: [aggregator] });
        const body = {
          start_absolute: 0,
          end_absolute: 10_000,
          metrics: [
            metric({ name: 'sum', sampling: { value: 1, unit: 'hours' } }),
            metric({ name: 'div', divisor: 0.5 }),
            metric({ name: 'scale', factor: 2 }),
            metric({ name: 'rate', unit: 'milliseconds' }),
          ],
        };
        const result = (values: string) =>
          `{"sample_size":3,"results":[{"name":"big","group_by":[{"name":"type","type":"number"}],"tags":{"h":["a"]},"values":${values}}]}`;
        expect(exchange(await post(gw, '/datapoints/query', body))).toEqual(
          ok(
            `{"queries":[${[result('[[1000,null]]'), result('[[1000,null],[2000,null],[3000,null]]'), result('[[1000,null],[2000,null],[3000,null]]'), result('[[2000,0],[3000,null]]')].join(',')}]}`,
          ),
        );
        const answer = await graphql(
          gw,
          `{
            sum: series(metric: "big", from: 0, to: 10000, aggregators: [{ sum: { sampling: { value: 1, unit: HOURS } } }]) { points { epochMs value type } }
            rate: rows(metric: "big", from: 0, to: 10000, aggregators: [{ rate: { unit: MILLISECONDS } }]) { epochMs value type }
          }`,
        );
        expect(answer).toEqual({
          status: 200,
          errors: undefined,
          data: {
            sum: [{ points: [{ epochMs: 1000, value: null, type: 'DOUBLE' }] }],
            rate: [
              { epochMs: 2000, value: 0, type: 'DOUBLE' },
              { epochMs: 3000, value: null, type: 'DOUBLE' },
            ],
          },
        });
      });
    });

    describe("names and series too large for the store's keys", () => {
      const L = expected;
      const over = nameOf(L.maxMetricBytes + 1);
      const metricTooLong = (field: string, name = over) =>
        `${field} must be at most ${L.maxMetricBytes} bytes in UTF-8, the longest metric name ${L.store} keys hold (it is ${Buffer.byteLength(name)} bytes) (got ${shown(name)})`;
      /** Node refuses a request line over 16 KiB (431) before any handler, so URL-borne names are tried only where they fit. */
      const fitsInUrl = L.maxMetricBytes < 5000;

      it("are measured from the store's key layouts", async () => {
        const { store } = await start();
        expect(store.limits).toEqual(expected);
      });

      it('take the longest metric name on every read and delete path, and refuse one byte more there and on writes, REST and GraphQL', async () => {
        const { gw } = await start();
        const longest = nameOf(L.maxMetricBytes);
        const query = (name: string) => ({ start_absolute: 0, metrics: [{ name }] });
        expect(exchange(await post(gw, '/datapoints/query', query(longest)))).toEqual(
          ok('{"queries":[{"sample_size":0,"results":[]}]}'),
        );
        expect(exchange(await post(gw, '/datapoints/query/tags', query(longest)))).toEqual(
          ok(`{"queries":[{"results":[{"name":${JSON.stringify(longest)},"tags":{},"values":[]}]}]}`),
        );
        expect(exchange(await post(gw, '/datapoints/delete', query(longest)))).toEqual(noContent);
        expect(
          exchange(
            await post(gw, '/datapoints', [
              { name: 'm', tags: { h: 'a' }, datapoints: [[1, 1]] },
              { name: over, tags: { h: 'a' }, datapoints: [[1, 1]] },
            ]),
          ),
        ).toEqual(refused(metricTooLong('metric[1].name')));
        const ingest = [
          { metric: 'm', tags: [{ name: 'h', value: 'a' }], points: [{ time: 1, value: 1 }] },
          { metric: over, tags: [{ name: 'h', value: 'a' }], points: [{ time: 1, value: 1 }] },
        ];
        expect(
          await graphql(gw, 'mutation ($series: [SeriesPointsInput!]!) { addPoints(series: $series) { points } }', {
            series: ingest,
          }),
        ).toEqual(badInput('series[1].metric', metricTooLong('series[1].metric'), 'addPoints'));
        await nothingWritten(gw);
        for (const path of ['/datapoints/query', '/datapoints/query/tags', '/datapoints/delete']) {
          expect(
            exchange(await post(gw, path, { start_absolute: 0, metrics: [{ name: 'm' }, { name: over }] })),
          ).toEqual(refused(metricTooLong('query.metric[1].name')));
        }
        if (fitsInUrl) {
          expect(exchange(await gw.call('GET', `/api/v1/metricnames?prefix=${encodeURIComponent(longest)}`))).toEqual(
            ok('{"results":[]}'),
          );
          expect(exchange(await gw.call('DELETE', `/api/v1/metric/${encodeURIComponent(longest)}`))).toEqual(noContent);
          expect(exchange(await gw.call('GET', `/api/v1/metricnames?prefix=${encodeURIComponent(over)}`))).toEqual(
            refused(metricTooLong('prefix', over)),
          );
          expect(exchange(await gw.call('DELETE', `/api/v1/metric/${encodeURIComponent(over)}`))).toEqual(
            refused(metricTooLong('metric')),
          );
        }

        const fields = [
          'tagNames(metric: $m)',
          'tagValues(metric: $m, tag: "h")',
          'seriesKeys(metric: $m) { type }',
          'points(metric: $m, from: 0) { metric }',
          'series(metric: $m, from: 0) { metric }',
          'rows(metric: $m, from: 0) { metric }',
        ];
        for (const field of fields) {
          const name = field.slice(0, field.indexOf('('));
          const text = `query ($m: String!) { ${field} }`;
          expect(await graphql(gw, text, { m: longest })).toEqual({
            status: 200,
            errors: undefined,
            data: { [name]: [] },
          });
          expect(await graphql(gw, text, { m: over })).toEqual(badInput('metric', metricTooLong('metric'), name));
        }
        const deletePoints = 'mutation ($m: String!) { deletePoints(metric: $m, from: 0, to: 1) { series } }';
        expect(await graphql(gw, deletePoints, { m: longest })).toEqual({
          status: 200,
          errors: undefined,
          data: { deletePoints: { series: 0 } },
        });
        expect(await graphql(gw, deletePoints, { m: over })).toEqual(
          badInput('metric', metricTooLong('metric'), 'deletePoints'),
        );
        const metricNames = 'query ($p: String!) { metricNames(prefix: $p) }';
        expect(await graphql(gw, metricNames, { p: longest })).toEqual({
          status: 200,
          errors: undefined,
          data: { metricNames: [] },
        });
        expect(await graphql(gw, metricNames, { p: over })).toEqual(
          badInput('prefix', metricTooLong('prefix', over), 'metricNames'),
        );
      });

      it('take a 3,000-character metric name on DELETE /metric where the store holds it, and refuse it where it does not', async () => {
        const { gw } = await start();
        const name = 'n'.repeat(3000);
        const answer = exchange(await gw.call('DELETE', `/api/v1/metric/${name}`));
        expect(answer).toEqual(L.maxMetricBytes >= 3000 ? noContent : refused(metricTooLong('metric', name)));
      });

      it('write the largest series the keys hold and read it back everywhere, and refuse a byte more with nothing written', async () => {
        const { gw } = await start();
        // A row key is the metric, 11 bytes, the data type (kairos_long: 11) and the tag string (h=<value>:, 3 + value).
        const metric = nameOf(Math.min(L.maxMetricBytes, L.maxRowKeyBytes - 26));
        expect(
          exchange(await post(gw, '/datapoints', { name: metric, tags: { h: 'a' }, datapoints: [[1, 1]] })),
        ).toEqual(noContent);
        const value = 'v'.repeat(L.maxRowKeyBytes - 27);
        expect(
          exchange(await post(gw, '/datapoints', { name: 'rk', tags: { h: value }, datapoints: [[2, 2]] })),
        ).toEqual(noContent);

        const both = { start_absolute: 0, metrics: [{ name: metric }, { name: 'rk', tags: { h: value } }] };
        expect(exchange(await post(gw, '/datapoints/query', both))).toEqual(
          ok(
            '{"queries":[' +
              `{"sample_size":1,"results":[{"name":${JSON.stringify(metric)},"group_by":[{"name":"type","type":"number"}],"tags":{"h":["a"]},"values":[[1,1]]}]},` +
              `{"sample_size":1,"results":[{"name":"rk","group_by":[{"name":"type","type":"number"}],"tags":{"h":[${JSON.stringify(value)}]},"values":[[2,2]]}]}]}`,
          ),
        );
        expect((await post(gw, '/datapoints/query/tags', both)).json).toEqual({
          queries: [
            { results: [{ name: metric, tags: { h: ['a'] }, values: [] }] },
            { results: [{ name: 'rk', tags: { h: [value] }, values: [] }] },
          ],
        });
        expect((await graphql(gw, 'query ($p: String!) { metricNames(prefix: $p) }', { p: metric })).data).toEqual({
          metricNames: [metric],
        });
        const read = await graphql(
          gw,
          'query ($m: String!) { tagValues(metric: $m, tag: "h", from: 0, to: 10) points(metric: $m, from: 0, to: 10) { points { epochMs } } }',
          { m: 'rk' },
        );
        expect(read).toEqual({
          status: 200,
          errors: undefined,
          data: { tagValues: [value], points: [{ points: [{ epochMs: 2 }] }] },
        });

        // One byte more: the tag value, or the data type (kairos_double is 2 bytes longer than kairos_long).
        const tooLarge = (field: string, bytes: number, tags: string) =>
          `${field} make a row key of ${bytes} bytes with the metric name, over the ${L.maxRowKeyBytes} bytes ${L.store} keys hold (got ${tags})`;
        const longer = `${value}v`;
        expect(
          exchange(
            await post(gw, '/datapoints', [
              { name: 'new', tags: { h: 'a' }, datapoints: [[1, 1]] },
              { name: 'rk', tags: { h: longer }, datapoints: [[3, 3]] },
            ]),
          ),
        ).toEqual(refused(tooLarge('metric[1].tags', L.maxRowKeyBytes + 1, shown({ h: longer }))));
        expect(
          exchange(await post(gw, '/datapoints', { name: 'rk', tags: { h: value }, datapoints: [[3, 1.5]] })),
        ).toEqual(refused(tooLarge('metric[0].tags', L.maxRowKeyBytes + 2, shown({ h: value }))));
        const series = [
          { metric: 'new', tags: [{ name: 'h', value: 'a' }], points: [{ time: 1, value: 1 }] },
          { metric: 'rk', tags: [{ name: 'h', value: longer }], type: 'LONG', points: [{ time: 3, value: 3 }] },
        ];
        const added = await graphql(
          gw,
          'mutation ($series: [SeriesPointsInput!]!) { addPoints(series: $series) { points } }',
          { series },
        );
        // GraphQL shows the tags as the client sent them: a list of entries.
        expect(added).toEqual(
          badInput(
            'series[1].tags',
            tooLarge('series[1].tags', L.maxRowKeyBytes + 1, shown([{ name: 'h', value: longer }])),
            'addPoints',
          ),
        );
        expect(
          exchange(
            await post(gw, '/datapoints/query', { start_absolute: 0, metrics: [{ name: 'new' }, { name: 'rk' }] }),
          ),
        ).toEqual(
          ok(
            '{"queries":[{"sample_size":0,"results":[]},' +
              `{"sample_size":1,"results":[{"name":"rk","group_by":[{"name":"type","type":"number"}],"tags":{"h":[${JSON.stringify(value)}]},"values":[[2,2]]}]}]}`,
          ),
        );
      });

      it('refuse a series of 10,000 tags on REST and GraphQL, naming the tags and the limit', async () => {
        const { gw } = await start();
        const names = Array.from({ length: 10_000 }, (_, i) => `t${i}`);
        const restTags = Object.fromEntries(names.map((name) => [name, 'v']));
        // many (4) + 11 + kairos_long (11) + Σ(name + "=v:"): 48,890 bytes of names and 30,000 of the rest.
        const message = (field: string, tags: unknown) =>
          `${field} make a row key of 78916 bytes with the metric name, over the ${L.maxRowKeyBytes} bytes ${L.store} keys hold (got ${shown(tags)})`;
        expect(exchange(await post(gw, '/datapoints', { name: 'many', tags: restTags, datapoints: [[1, 1]] }))).toEqual(
          refused(message('metric[0].tags', sortedTags(restTags))),
        );
        const entries = names.map((name) => ({ name, value: 'v' }));
        const added = await graphql(
          gw,
          'mutation ($series: [SeriesPointsInput!]!) { addPoints(series: $series) { points } }',
          { series: [{ metric: 'many', tags: entries, type: 'LONG', points: [{ time: 1, value: 1 }] }] },
        );
        expect(added).toEqual(badInput('series[0].tags', message('series[0].tags', entries), 'addPoints'));
        await nothingWritten(gw);
      });

      it.runIf(L.maxRowKeysTagsBytes !== undefined)(
        'write a tag map of exactly the row_keys limit, and refuse one tag more',
        async () => {
          const { gw } = await start();
          // Four-character names and one-character values: 13 bytes each in the map, 7 in the tag string, so the map binds.
          const tags = (n: number) =>
            Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i.toString(36).padStart(3, '0')}`, 'v']));
          // kairos_long (11) + count (4) + 13 per tag.
          const fits = (L.maxRowKeysTagsBytes! - 15) / 13;
          expect(Number.isInteger(fits)).toBe(true);
          expect(
            exchange(await post(gw, '/datapoints', { name: 'map', tags: tags(fits), datapoints: [[1, 1]] })),
          ).toEqual(noContent);
          const found = (await post(gw, '/datapoints/query/tags', { start_absolute: 0, metrics: [{ name: 'map' }] }))
            .json as { queries: { results: { tags: object }[] }[] };
          expect(Object.keys(found.queries[0]!.results[0]!.tags)).toHaveLength(fits);
          const more = tags(fits + 1);
          expect(exchange(await post(gw, '/datapoints', { name: 'map2', tags: more, datapoints: [[1, 1]] }))).toEqual(
            refused(
              `metric[0].tags take ${L.maxRowKeysTagsBytes! + 13} bytes as a row_keys entry (data type and tag map), over the ${L.maxRowKeysTagsBytes} bytes ${L.store} keys hold (got ${shown(more)})`,
            ),
          );
          expect((await gw.call('GET', '/api/v1/metricnames')).json).toEqual({ results: ['map'] });
        },
      );

      it('leave tag filters of any length to the filter: they are no key', async () => {
        const { gw } = await start();
        const body = { start_absolute: 0, metrics: [{ name: 'm', tags: { h: 'v'.repeat(70_000) } }] };
        expect(exchange(await post(gw, '/datapoints/query', body))).toEqual(
          ok('{"queries":[{"sample_size":0,"results":[]}]}'),
        );
      });
    });
  });
}
