/**
 * Prometheus's query API as Grafana's Prometheus data source uses it, written once and run against a gateway whose
 * source holds the suite's series (PROM_SERIES), whatever its layout: the request shapes Grafana sends (Save & test,
 * POST form ranges, suggestions with the parameters in the URL, label values in U__ form, series with repeated match[],
 * buildinfo) and the exact answers, errors included.
 */
import { describe, expect, it } from 'vitest';

/** The suite's series: metric, tags, type, points as [ms, value]. `host.name` is a tag name that needs quoting. */
export const PROM_SERIES = [
  {
    metric: 'prom.cpu',
    tags: { host: 'a', 'host.name': 'alpha' },
    type: 'double',
    points: [
      [60_000, 1],
      [120_000, 2.5],
      [180_000, 4],
    ],
  },
  {
    metric: 'prom.cpu',
    tags: { host: 'b', 'host.name': 'beta' },
    type: 'long',
    points: [
      [60_000, 10],
      [120_000, 20],
      [180_000, 30],
    ],
  },
  { metric: 'prom.mem', tags: { host: 'a' }, type: 'long', points: [[120_000, 7]] },
  { metric: 'prom.text', tags: { host: 'a' }, type: 'string', points: [[120_000, 'up']] },
] as const;

export interface PromResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

export interface PromClient {
  /** `path` after /prometheus/<source>/api/v1; `form` is sent as an urlencoded body. */
  get(path: string, source?: string, headers?: Record<string, string>): Promise<PromResponse>;
  post(path: string, form: string, source?: string, headers?: Record<string, string>): Promise<PromResponse>;
}

export function promClient(url: string, defaultSource: string): PromClient {
  const call = async (method: string, path: string, body: string | undefined, source: string, headers = {}) => {
    const response = await fetch(`${url}/prometheus/${source}/api/v1${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      ...(body !== undefined ? { body } : {}),
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  };
  return {
    get: (path, source = defaultSource, headers = {}) => call('GET', path, undefined, source, headers),
    post: (path, form, source = defaultSource, headers = {}) => call('POST', path, form, source, headers),
  };
}

const success = (data: unknown, extra: Record<string, unknown> = {}) => ({ status: 'success', data, ...extra });

/** What a layout holds of PROM_SERIES: Heroic's table holds no text, so its source lacks `prom.text`. */
export interface PromLayout {
  readonly text: boolean;
}

/** PROM_SERIES as a layout holding `layout` can take them. */
export function promSeriesFor(layout: PromLayout) {
  return PROM_SERIES.filter((s) => layout.text || s.type !== 'string');
}

/** The suite over a client of a gateway whose source (`name` names it in the titles) holds promSeriesFor(layout). */
export function describePrometheusApi(
  name: string,
  client: () => PromClient,
  layout: PromLayout = { text: true },
): void {
  describe(`Prometheus's API on ${name}`, () => {
    it("answers Grafana's Save & test (POST query=1+1&time=4)", async () => {
      const got = await client().post('/query', 'query=1%2B1&time=4');
      expect([got.status, got.body]).toEqual([200, success({ resultType: 'scalar', result: [4, '2'] })]);
    });

    it('answers an instant query with the latest sample within the lookback, long and double alike', async () => {
      const got = await client().get(`/query?query=${encodeURIComponent('{"prom.cpu"}')}&time=200`);
      expect(got.body).toEqual(
        success({
          resultType: 'vector',
          result: [
            { metric: { __name__: 'prom.cpu', host: 'a', 'host.name': 'alpha' }, value: [200, '4'] },
            { metric: { __name__: 'prom.cpu', host: 'b', 'host.name': 'beta' }, value: [200, '30'] },
          ],
        }),
      );
    });

    it("answers alerting's instant query: a POST form at an unaligned time, with an aggregation", async () => {
      const query = encodeURIComponent('max by ("host.name") ({"prom.cpu"}) > 3');
      const got = await client().post('/query', `query=${query}&time=200.123`);
      expect(got.body).toEqual(
        success({
          resultType: 'vector',
          result: [
            { metric: { 'host.name': 'alpha' }, value: [200.123, '4'] },
            { metric: { 'host.name': 'beta' }, value: [200.123, '30'] },
          ],
        }),
      );
    });

    it('answers a POST form range query as a matrix, times in seconds and values as strings', async () => {
      const query = encodeURIComponent('sum by (host) (rate({"prom.cpu", host=~"a|b"}[2m]))');
      const got = await client().post('/query_range', `query=${query}&start=120&end=180.5&step=30`);
      expect(got.body).toEqual(
        success(
          {
            resultType: 'matrix',
            result: [
              {
                metric: { host: 'a' },
                values: [
                  // Extrapolated only to where the counter would have been zero.
                  [120, '0.020833333333333336'],
                  [150, '0.025'],
                  [180, '0.025'],
                ],
              },
              {
                metric: { host: 'b' },
                values: [
                  [120, '0.16666666666666666'],
                  [150, '0.16666666666666666'],
                  [180, '0.16666666666666666'],
                ],
              },
            ],
          },
          {
            infos: [
              'PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: "prom.cpu" (1:21)',
            ],
          },
        ),
      );
    });

    it('takes RFC 3339 times and duration steps, with milliseconds written after the point', async () => {
      const got = await client().get(
        `/query_range?query=${encodeURIComponent('{__name__="prom.mem"}')}&start=1970-01-01T00:02:00Z&end=1970-01-01T00:02:01.5Z&step=1500ms`,
      );
      expect(got.body).toEqual(
        success({
          resultType: 'matrix',
          result: [
            {
              metric: { __name__: 'prom.mem', host: 'a' },
              values: [
                [120, '7'],
                [121.5, '7'],
              ],
            },
          ],
        }),
      );
    });

    it('selects metrics by a regular expression over their names, skipping text series with a warning', async () => {
      const got = await client().get(
        `/query?query=${encodeURIComponent('{__name__=~"prom\\\\.(mem|text)"}')}&time=130`,
      );
      expect(got.body).toEqual(
        success(
          { resultType: 'vector', result: [{ metric: { __name__: 'prom.mem', host: 'a' }, value: [130, '7'] }] },
          layout.text
            ? {
                warnings: [
                  'series of "prom.text" with text values were skipped: PromQL reads long and double values only',
                ],
              }
            : {},
        ),
      );
    });

    it("answers suggestions' POST with the parameters in the URL and an empty body", async () => {
      const got = await client().post('/labels?start=0&end=300&match%5B%5D=%7B__name__%3D%22prom.mem%22%7D', '');
      expect(got.body).toEqual(success(['__name__', 'host']));
    });

    it('lists label names of every series, and truncates to limit with a warning', async () => {
      expect((await client().get('/labels?start=0&end=300')).body).toEqual(success(['__name__', 'host', 'host.name']));
      expect((await client().get('/labels?start=0&end=300&limit=2')).body).toEqual(
        success(['__name__', 'host'], { warnings: ['results truncated due to limit'] }),
      );
    });

    it('lists label values, names in U__ form unescaped, and metric names', async () => {
      expect((await client().get('/label/U__host_2e_name/values?start=0&end=300')).body).toEqual(
        success(['alpha', 'beta']),
      );
      const matched = `/label/host/values?match%5B%5D=${encodeURIComponent('{__name__="prom.mem"}')}`;
      expect((await client().get(matched)).body).toEqual(success(['a']));
      expect((await client().get('/label/__name__/values')).body).toEqual(
        success(['prom.cpu', 'prom.mem', ...(layout.text ? ['prom.text'] : [])]),
      );
    });

    it('refuses POST on label values, as Prometheus does', async () => {
      const got = await client().post('/label/host/values', '');
      expect([got.status, got.headers.get('allow'), got.body]).toEqual([
        405,
        'GET',
        {
          status: 'error',
          errorType: 'bad_data',
          error: 'POST is not allowed on /prometheus/{source}/api/v1/label/{name}/values (GET)',
        },
      ]);
    });

    it('lists series of repeated match[], each once', async () => {
      const match = (s: string) => `match%5B%5D=${encodeURIComponent(s)}`;
      const got = await client().get(
        `/series?${match('{"prom.cpu", host="b"}')}&${match('{__name__="prom.mem"}')}&${match('{"prom.cpu", host="b"}')}&start=0&end=300`,
      );
      expect(got.body).toEqual(
        success([
          { __name__: 'prom.cpu', host: 'b', 'host.name': 'beta' },
          { __name__: 'prom.mem', host: 'a' },
        ]),
      );
    });

    it('lists series of a POST form, and label values of every metric as newer metric browsers ask', async () => {
      const form = `match%5B%5D=${encodeURIComponent('{"prom.mem"}')}&start=0&end=300`;
      expect((await client().post('/series', form)).body).toEqual(success([{ __name__: 'prom.mem', host: 'a' }]));
      const every = `match%5B%5D=${encodeURIComponent('{__name__=~".+"}')}&start=0&end=300`;
      expect((await client().get(`/label/host/values?${every}`)).body).toEqual(success(['a', 'b']));
    });

    it('answers buildinfo, metadata, exemplars and rules as Grafana expects, and 404 for status/flags', async () => {
      const info = await client().get('/status/buildinfo');
      expect(info.body).toEqual(
        success({
          version: '3.0.0',
          revision: expect.stringMatching(/^kairograph-\d+\.\d+\.\d+/),
          branch: '',
          buildUser: '',
          buildDate: '',
          goVersion: '',
        }),
      );
      expect((await client().get('/metadata')).body).toEqual(success({}));
      expect((await client().post('/query_exemplars', 'query=test&start=0&end=10')).body).toEqual(success([]));
      expect((await client().get('/rules')).body).toEqual(success({ groups: [] }));
      const flags = await client().get('/status/flags');
      expect([flags.status, flags.body]).toEqual([
        404,
        {
          status: 'error',
          errorType: 'not_found',
          error: 'status/flags is not served: Kairograph has no command-line flags of Prometheus to show',
        },
      ]);
    });

    it("answers bad input 400 bad_data with Prometheus's messages", async () => {
      const cases: [string, string][] = [
        ['/query?query=sum(', '1:5: parse error: unclosed left parenthesis'],
        ['/query?query=1&time=yesterday', 'invalid parameter "time": cannot parse "yesterday" to a valid timestamp'],
        ['/query_range?query=1&start=10&end=5&step=1', 'end timestamp must not be before start time'],
        [
          '/query_range?query=1&start=0&end=10&step=x',
          'invalid parameter "step": cannot parse "x" to a valid duration',
        ],
        [
          '/query_range?query=1&start=0&end=10&step=0',
          'zero or negative query resolution step widths are not accepted. Try a positive integer',
        ],
        [
          '/query_range?query=1&start=0&end=11001&step=1',
          'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)',
        ],
        ['/series?start=0', 'no match[] parameter provided'],
        ['/labels?limit=-1', 'invalid parameter "limit": limit must be non-negative'],
      ];
      for (const [path, error] of cases) {
        const got = await client().get(path);
        expect([path, got.status, got.body]).toEqual([path, 400, { status: 'error', errorType: 'bad_data', error }]);
      }
    });

    it('refuses a selector without its metric, naming what it needs', async () => {
      const got = await client().get(`/query?query=${encodeURIComponent('{host="a"}')}`);
      expect([got.status, got.body]).toEqual([
        400,
        {
          status: 'error',
          errorType: 'bad_data',
          error:
            'a selector must name its metric with __name__="<name>" or __name__=~"<regular expression>" (or a metric name before its braces): series are found by metric',
        },
      ]);
    });
  });
}
