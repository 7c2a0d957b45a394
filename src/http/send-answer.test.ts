/**
 * The answer writer on a real Node server, read byte for byte from a raw socket: headers in the order given with the
 * length between them, the answer's own headers, and a client that stops reading cut off by the request's time limit.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Answer } from './answer-writer.js';
import { answerHeaders, send, sendAnswer } from './send-answer.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/** Serves one request with `answer` and resolves with every byte the client received, once the server closes it. */
async function exchange(answer: (res: ServerResponse) => void): Promise<string> {
  server = createServer({ keepAlive: false }, (_: IncomingMessage, res) => {
    answer(res);
    res.once('finish', () => res.socket?.end());
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('close', () => resolve(received.replace(/\r\nDate: [^\r]+/, '')));
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  });
}

const plain = (text: string): Answer => ({
  body: [text],
  coding: undefined,
  bodyBytes: Buffer.byteLength(text),
  bytes: Buffer.byteLength(text),
  varies: false,
});

describe('send', () => {
  it('writes the head, the length in UTF-8 bytes, then the tail, which wins over the head', async () => {
    const text = await exchange((res) =>
      send(
        res,
        404,
        '{"errors":["é"]}',
        { pragma: 'no-cache', 'content-type': 'application/json' },
        {
          'x-request-id': 'r1',
          'content-type': 'text/plain',
        },
      ),
    );
    expect(text).toBe(
      'HTTP/1.1 404 Not Found\r\npragma: no-cache\r\ncontent-type: text/plain\r\ncontent-length: 17\r\nx-request-id: r1\r\nConnection: close\r\n\r\n{"errors":["Ã©"]}',
    );
  });

  it('says a length of 0 for an empty body, but not for a 204, and writes nothing once the answer has begun', async () => {
    expect(await exchange((res) => send(res, 200, undefined, { expires: '0' }))).toBe(
      'HTTP/1.1 200 OK\r\nexpires: 0\r\ncontent-length: 0\r\nConnection: close\r\n\r\n',
    );
    await new Promise((resolve) => server?.close(resolve));
    expect(
      await exchange((res) => {
        send(res, 204, undefined, { allow: 'GET, OPTIONS' });
        send(res, 500, 'too late', {});
      }),
    ).toBe('HTTP/1.1 204 No Content\r\nallow: GET, OPTIONS\r\nConnection: close\r\n\r\n');
  });
});

describe('sendAnswer', () => {
  it("writes the answer's chunks with its length, coding and Vary between the head and the tail", async () => {
    const answer: Answer = { ...plain('ab'), body: ['a', Buffer.from('b')], coding: 'gzip', varies: true };
    expect(answerHeaders(answer)).toEqual({
      'content-length': '2',
      'content-encoding': 'gzip',
      vary: 'Accept-Encoding',
    });
    const text = await exchange(
      (res) =>
        void sendAnswer(
          res,
          200,
          answer,
          { 'content-type': 'application/json' },
          { 'x-id': '1' },
          new AbortController().signal,
        ),
    );
    expect(text).toBe(
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\ncontent-encoding: gzip\r\nvary: Accept-Encoding\r\nx-id: 1\r\nConnection: close\r\n\r\nab',
    );
  });

  it('waits for a client that stops reading, and cuts it off when the time limit passes', async () => {
    const chunk = 'x'.repeat(1024 * 1024);
    const answer: Answer = {
      ...plain(''),
      body: Array.from({ length: 64 }, () => chunk),
      bodyBytes: 64 * chunk.length,
    };
    const limit = new AbortController();
    let sent: Promise<void> | undefined;
    let response: ServerResponse | undefined;
    server = createServer((_, res) => {
      response = res;
      sent = sendAnswer(res, 200, answer, {}, {}, limit.signal);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const socket = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port });
    socket.pause();
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await expect.poll(() => response?.writableNeedDrain, { timeout: 5000 }).toBe(true);
    // Held at the socket's buffers: far less than the 64 MB answer has left the writer.
    expect(response!.writableLength).toBeLessThan(8 * chunk.length);
    let settled = false;
    void sent!.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    limit.abort();
    await sent;
    expect(response!.destroyed).toBe(true);
    socket.destroy();
  });
});
