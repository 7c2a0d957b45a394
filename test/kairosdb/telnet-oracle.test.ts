/**
 * KairosDB 1.3's telnet port as the oracle of Kairograph's: the same lines to both (metric names apart by a prefix),
 * on one Cassandra keyspace, then the same series, tags, types and points read back, nothing stored for the bad lines,
 * and the same answers: none but to `version`, with the connection kept open.
 */
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { connectLines, eventually, freePort } from '../support/tcp-sender.js';
import { openPair, uniquePrefix, type Pair } from './kairosdb-pair.js';

const P = uniquePrefix('telnet');

let pair: Pair;
let kairographTelnet: number;

beforeAll(async () => {
  kairographTelnet = await freePort();
  pair = await openPair({ TELNET_PORT: String(kairographTelnet), TCP_INGEST_BATCH_MS: '20' });
});
afterAll(async () => {
  await pair?.close();
});

/** `M` stands for the metric prefix of the server the lines go to. */
const GOOD = [
  'put M.a 1700000000 42 host=a',
  'put M.a 1700000001234 7 host=a',
  'putm M.a 1700000002000 -3 host=a',
  'put M.b 1700000000 1.5 host=b dc=x',
  'put M.b 1700000003 2. host=b dc=x',
  'put M.c 1700000000 9007199254740993 host=c',
  'put M.d 1700000000 5',
  'put M.e 1700000000 6 a=b=c',
  'puts M.f 1700000000000 hello host=f',
  'put\tM.g\t1700000000\t8\thost=g\r',
  'put "M.h" 1700000000 9 "host=h"',
  'put M.i 1700000000 10 host=i kairos_opt.ttl=86400',
];
const BAD = [
  'put M.x 1700000000',
  'put M.x 1700000000 abc host=x',
  'put M.x 1700000000 1 host=',
  'put M.x 1700000000 1 host=a host=b',
  'put M.x 1700000000 1e5 host=x',
  'put M.x 1.5 1 host=x',
  'put M.x 1700000000 1 =v',
  'help',
];
const SUFFIXES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];

/** Sends the lines, then `version`, and returns what the server answered once that answer came, the connection open. */
async function session(port: number, prefix: string): Promise<string> {
  const client = await connectLines(port);
  const lines = [...BAD, ...GOOD].map((line) => line.replace('M.', prefix));
  await client.send(`${lines.join('\n')}\nversion\n`);
  const replies = await eventually(
    async () => (client.replies().endsWith('\n') ? client.replies() : undefined),
    20_000,
  );
  expect(client.socket.destroyed).toBe(false);
  await client.end();
  return replies;
}

/** Every series of `metric`, one per tag combination, as Kairograph's REST API answers (one keyspace for both). */
async function series(metric: string): Promise<unknown> {
  const answer = await pair.kairograph.call('POST', '/api/v1/datapoints/query', {
    body: {
      start_absolute: 1_600_000_000_000,
      end_absolute: 1_800_000_000_000,
      metrics: [{ name: metric, group_by: [{ name: 'tag', tags: ['host', 'dc', 'a', 'add'] }] }],
    },
  });
  // The text, less the name: a long past 2^53 would not survive JSON.parse.
  return answer.text.replaceAll(metric, 'M');
}

it('stores what KairosDB stores and answers what it answers', async () => {
  const kairosdbTelnet = inject('kairosdb').telnetPort;
  expect(
    kairosdbTelnet,
    "the run's KairosDB serves no telnet port (KAIROGRAPH_KAIROSDB_TELNET_PORT for a reused one)",
  ).toBeGreaterThan(0);
  const [theirs, ours] = await Promise.all([session(kairosdbTelnet, `${P}kdb.`), session(kairographTelnet, `${P}kg.`)]);
  // Nothing to the bad lines, one line to `version`: KairosDB's build version, our version after the same release.
  expect(theirs).toMatch(/^KairosDB 1\.3\.0-1\.\d+\n$/);
  expect(ours).toMatch(/^KairosDB 1\.3\.0-1 \(Kairograph [\d.]+\)\n$/);

  // KairosDB's ingest is asynchronous: wait until it has every series, then compare.
  const names = async (prefix: string) =>
    (
      (await pair.kairograph.call('GET', `/api/v1/metricnames?prefix=${encodeURIComponent(prefix)}`)).json as {
        results: string[];
      }
    ).results
      .map((name) => name.slice(prefix.length))
      .sort();
  await eventually(async () => ((await names(`${P}kdb.`)).length === SUFFIXES.length ? true : undefined), 30_000);
  expect(await names(`${P}kg.`)).toEqual(SUFFIXES);
  expect(await names(`${P}kdb.`)).toEqual(SUFFIXES);
  for (const suffix of SUFFIXES) {
    const expected = await eventually(async () => {
      const [kdb, kg] = [await series(`${P}kdb.${suffix}`), await series(`${P}kg.${suffix}`)];
      return kdb === kg ? kdb : undefined;
    }, 20_000).catch(async () => series(`${P}kdb.${suffix}`));
    expect(await series(`${P}kg.${suffix}`), suffix).toEqual(expected);
  }
});
