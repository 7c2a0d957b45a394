/** The channel's cancellation where no server is needed to see it (the calls themselves are in test/bigtable/). */
import http2 from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { GrpcChannel } from './grpc-channel.js';

const servers: http2.Http2Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('GrpcChannel', () => {
  it('sends nothing for a call aborted while its token was fetched, and rejects with the abort reason', async () => {
    let streams = 0;
    const server = http2.createServer();
    servers.push(server);
    server.on('stream', (stream) => {
      streams++;
      stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '0' }, { endStream: true });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const controller = new AbortController();
    const channel = new GrpcChannel({
      endpoint: `127.0.0.1:${port}`,
      tls: false,
      authorization: async () => {
        controller.abort(new Error('the client left'));
        return 'Bearer token';
      },
    });
    try {
      await expect(channel.unary('/test.Service/Method', Buffer.alloc(0), 60_000, controller.signal)).rejects.toThrow(
        'the client left',
      );
      expect(streams).toBe(0);
    } finally {
      channel.close();
    }
  });
});
