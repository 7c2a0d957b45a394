/**
 * A plain TCP client for the line protocols' tests: it sends bytes as collectors do, gathers what the server answers,
 * and tells when the server closed the connection.
 */
import { createConnection, createServer, type Socket } from 'node:net';

export interface LineClient {
  readonly socket: Socket;
  /** Everything the server has sent so far. */
  replies(): string;
  /** Writes and resolves once the bytes are handed to the kernel (or buffered, when the server has paused us). */
  send(data: string | Buffer): Promise<void>;
  /** Resolves with how long the connection was open once the server (or we) closed it. */
  readonly closed: Promise<number>;
  /** Ends our side; the server writes what it holds and closes. */
  end(): Promise<number>;
}

export async function connectLines(port: number): Promise<LineClient> {
  const socket = createConnection({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const openedAt = performance.now();
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (text: string) => {
    received += text;
  });
  // A reset (the server destroying the socket) is a close like any other here.
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - openedAt)));
  return {
    socket,
    replies: () => received,
    send: (data) =>
      new Promise<void>((resolve) => {
        if (socket.write(data)) resolve();
        else socket.once('drain', () => resolve());
      }),
    closed,
    end: () => {
      socket.end();
      return closed;
    },
  };
}

/** A port nothing listens on just now: the line protocols' ports are off at 0, so tests pick one. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `probe` until it returns something other than undefined, for at most `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`nothing came within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
