/**
 * The client's retries against a scripted gRPC server on Node's http2: a ReadRows stream that fails after a row is read
 * again from just after that row, a status that is no reason to retry fails at once, and MutateRows retries only the
 * entries that failed with UNAVAILABLE.
 */
import { getEventListeners } from 'node:events';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BigtableClient } from './bigtable-client.js';
import { ProtoWriter, protoFields } from './proto-wire.js';

type Handler = (path: string, request: Buffer, stream: http2.ServerHttp2Stream) => void;
let server: http2.Http2Server | undefined;
let client: BigtableClient | undefined;

afterEach(async () => {
  client?.close();
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  server = undefined;
});

let lastHeaders: http2.IncomingHttpHeaders = {};

async function serve(handler: Handler, authorization?: () => Promise<string>): Promise<BigtableClient> {
  server = http2.createServer();
  server.on('stream', (stream, headers) => {
    lastHeaders = headers;
    const parts: Buffer[] = [];
    stream.on('data', (d: Buffer) => parts.push(d));
    stream.on('end', () => handler(String(headers[':path']), Buffer.concat(parts).subarray(5), stream));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new BigtableClient({
    endpoint: `127.0.0.1:${port}`,
    emulator: true,
    project: 'p',
    instance: 'i',
    table: 't',
    deadlineMs: 5000,
    attempts: 3,
    ...(authorization === undefined ? {} : { authorization }),
  });
  return client;
}

const frame = (message: Buffer): Buffer => {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
};
const rowResponse = (key: string): Buffer => {
  const chunk = new ProtoWriter()
    .bytes(1, Buffer.from(key))
    .bytes(2, new ProtoWriter().bytes(1, 'points').finish())
    .bytes(3, new ProtoWriter().bytes(1, Buffer.from([0, 0, 0, 1])).finish())
    .bytes(6, Buffer.from('v'))
    .varint(9, true)
    .finish();
  return new ProtoWriter().bytes(1, chunk).finish();
};
const answer = (stream: http2.ServerHttp2Stream, messages: Buffer[], status: number, details = ''): void => {
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': String(status), 'grpc-message': details }));
  stream.end(Buffer.concat(messages.map(frame)));
};
/** The row range of a ReadRowsRequest: [field number of its start bound, start key]. */
const startOf = (request: Buffer): [number, string] => {
  for (const f of protoFields(request))
    if (f.field === 2 && f.wire === 2)
      for (const range of protoFields(f.bytes))
        if (range.field === 2 && range.wire === 2)
          for (const bound of protoFields(range.bytes))
            if (bound.wire === 2 && bound.field <= 2) return [bound.field, bound.bytes.toString()];
  return [0, ''];
};

describe('BigtableClient', () => {
  it('reads a failed ReadRows stream again from just after its last whole row', async () => {
    const starts: Array<[number, string]> = [];
    const c = await serve((path, request, stream) => {
      expect(path).toBe('/google.bigtable.v2.Bigtable/ReadRows');
      starts.push(startOf(request));
      if (starts.length === 1) answer(stream, [rowResponse('a'), rowResponse('b')], 14, 'connection reset');
      else answer(stream, [rowResponse('c')], 0);
    });
    const keys: string[] = [];
    for await (const row of c.readRows({ start: Buffer.from('a'), end: Buffer.alloc(0) }, undefined, 0))
      keys.push(row.key.toString());
    expect(keys).toEqual(['a', 'b', 'c']);
    // Closed at 'a' first (1: start_key_closed), then open after 'b' (2: start_key_open).
    expect(starts).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
  });

  it("sends each call's token and the table it is for, as Google's front end asks", async () => {
    const c = await serve(
      (_, __, stream) => answer(stream, [], 0),
      async () => 'Bearer t-1',
    );
    for await (const _ of c.readRows({ start: Buffer.alloc(0), end: Buffer.alloc(0) }, undefined, 1)) {
      // none
    }
    expect([lastHeaders['authorization'], lastHeaders['x-goog-request-params']]).toEqual([
      'Bearer t-1',
      'table_name=projects%2Fp%2Finstances%2Fi%2Ftables%2Ft',
    ]);
  });

  it('leaves no listener on a signal that outlives its calls, and stops a call when it aborts', async () => {
    const c = await serve((_, __, stream) => answer(stream, [rowResponse('a')], 0));
    const controller = new AbortController();
    for (let i = 0; i < 20; i++)
      for await (const _ of c.readRows(
        { start: Buffer.alloc(0), end: Buffer.alloc(0) },
        undefined,
        0,
        controller.signal,
      )) {
        // one row
      }
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
    controller.abort(new Error('the request ended'));
    await expect(
      c.readRows({ start: Buffer.alloc(0), end: Buffer.alloc(0) }, undefined, 0, controller.signal).next(),
    ).rejects.toThrow('the request ended');
  });

  it('fails at once on a status that is no reason to retry, naming it', async () => {
    let calls = 0;
    const c = await serve((_, __, stream) => {
      calls++;
      answer(stream, [], 5, 'table "t" not found');
    });
    await expect(c.readRows({ start: Buffer.alloc(0), end: Buffer.alloc(0) }, undefined, 0).next()).rejects.toThrow(
      'the bigtable store is unavailable: Bigtable table projects/p/instances/i/tables/t not found: table "t" not found',
    );
    expect(calls).toBe(1);
  });

  it('fails at once on a request the server finds wrong, with its status', async () => {
    const c = await serve((_, __, stream) => answer(stream, [], 3, 'bad filter'));
    await expect(c.readRows({ start: Buffer.alloc(0), end: Buffer.alloc(0) }, undefined, 0).next()).rejects.toThrow(
      '/google.bigtable.v2.Bigtable/ReadRows failed with gRPC status 3 (INVALID_ARGUMENT): bad filter',
    );
  });

  it('gives up after its attempts with the store unavailable', async () => {
    let calls = 0;
    const c = await serve((_, __, stream) => {
      calls++;
      answer(stream, [], 14, 'down');
    });
    await expect(c.readRows({ start: Buffer.alloc(0), end: Buffer.alloc(0) }, undefined, 0).next()).rejects.toThrow(
      'the bigtable store is unavailable: /google.bigtable.v2.Bigtable/ReadRows failed with gRPC status 14 (UNAVAILABLE): down',
    );
    expect(calls).toBe(3);
  });

  it('retries only the MutateRows entries that failed with UNAVAILABLE', async () => {
    const sent: string[][] = [];
    const c = await serve((_, request, stream) => {
      const keys: string[] = [];
      for (const f of protoFields(request))
        if (f.field === 2 && f.wire === 2)
          for (const e of protoFields(f.bytes)) if (e.field === 1 && e.wire === 2) keys.push(e.bytes.toString());
      sent.push(keys);
      const entries = new ProtoWriter();
      if (sent.length === 1) {
        const status = new ProtoWriter().varint(1, 14).bytes(2, 'busy').finish();
        entries.bytes(1, new ProtoWriter().varint(1, 1).bytes(2, status).finish());
      }
      answer(stream, [entries.finish()], 0);
    });
    const set = { set: { family: 'points', qualifier: Buffer.alloc(4), timestampMicros: -1, value: Buffer.alloc(8) } };
    await c.mutateRows([
      { key: Buffer.from('x'), mutations: [set] },
      { key: Buffer.from('y'), mutations: [set] },
    ]);
    expect(sent).toEqual([['x', 'y'], ['y']]);
  });
});
