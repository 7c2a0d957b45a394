/**
 * A TCP proxy on 127.0.0.1 in front of the test Cassandra that a fault test can take down (connections refused and
 * cut, as when the node dies), bring back on the same port, or stall (connected, but nothing answers).
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Refuses new connections and cuts open ones. */
  down(): Promise<void>;
  /** Listens again on the same port and forwards as before (connections open during a stall are cut). */
  up(): Promise<void>;
  /** Keeps connections open but forwards nothing more, in either direction, until `up`. */
  stall(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(
  target: { host: string; port: number },
  options: { startDown?: boolean } = {},
): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let stalled = false;
  let server: Server | undefined;
  const pipe = (from: Socket, to: Socket) => {
    from.on('data', (chunk) => {
      if (!stalled) to.write(chunk);
    });
  };
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = createConnection(target);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        pipe(client, upstream);
        pipe(upstream, client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        server = s;
        resolve((s.address() as { port: number }).port);
      });
    });
  const stop = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  // A port nobody listens on until `up`: taken from the kernel, then released.
  const port = await listen(0);
  if (options.startDown) await stop();
  return {
    port,
    down: stop,
    async up() {
      // Bytes dropped while stalled leave the CQL streams corrupt: cut them, as a restarted node would.
      if (stalled) for (const socket of sockets) socket.destroy();
      stalled = false;
      if (server === undefined) await listen(port);
    },
    stall() {
      stalled = true;
    },
    close: stop,
  };
}
