/**
 * Access tokens from a scripted metadata server: the header each call carries, kept until a minute before it expires,
 * one fetch for calls that wait together, and a failure that names the server and its answer.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { metadataAuthorization } from './access-token.js';

let server: http.Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  server = undefined;
});

async function metadata(answer: (n: number, flavor: string | undefined) => [number, unknown]): Promise<string> {
  let n = 0;
  server = http.createServer((request, response) => {
    const [status, body] = answer(++n, request.headers['metadata-flavor'] as string | undefined);
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
}

describe('metadataAuthorization', () => {
  it('fetches a token once for calls that wait together, keeps it until a minute before it expires', async () => {
    let clock = 1_000_000;
    const url = await metadata((n, flavor) => [
      flavor === 'Google' ? 200 : 403,
      { access_token: `t${n}`, expires_in: 3600 },
    ]);
    const authorization = metadataAuthorization(url, () => clock);
    expect(await Promise.all([authorization(), authorization()])).toEqual(['Bearer t1', 'Bearer t1']);
    clock += 3_540_000 - 1;
    expect(await authorization()).toBe('Bearer t1');
    clock += 1;
    expect(await authorization()).toBe('Bearer t2');
  });

  it('names the metadata server and its answer when it gives no token', async () => {
    const url = await metadata(() => [404, { error: 'not found' }]);
    await expect(metadataAuthorization(url)()).rejects.toThrow(
      `no access token from the metadata server ${url}: it answered 404`,
    );
  });
});
