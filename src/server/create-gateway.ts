/**
 * Builds the gateway: graphql-yoga with its plugins in one ordered list and the KairosDB REST API (/api/v1),
 * behind one Node HTTP listener.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, useReadinessCheck } from 'graphql-yoga';
import type { Config } from '../config.js';
import { createGatewaySchema } from '../graphql/schema.js';
import { createKairosRestHandler, isKairosRestPath } from '../kairos-rest/kairos-rest-handler.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { DEFAULT_GRAPHIQL_QUERY } from './graphiql-default-query.js';
import { createMaskError } from './mask-error.js';
import { createRequestContext, type RequestContext } from './request-context.js';
import { useQueryStatistics } from './use-query-statistics.js';

export interface GatewayDeps {
  readonly store: Store;
  readonly config: Config;
  readonly log: Logger;
}

export function createGateway({ store, config, log }: GatewayDeps) {
  // A request's context owns a timer; it is released when yoga has sent the response.
  const contexts = new WeakMap<Request, RequestContext>();
  const yoga = createYoga<object, RequestContext>({
    schema: createGatewaySchema(),
    graphqlEndpoint: '/graphql',
    // Bundled assets: GraphiQL must work where no CDN is reachable.
    renderGraphiQL,
    graphiql: { title: 'Kairograph', defaultQuery: DEFAULT_GRAPHIQL_QUERY },
    landingPage: false,
    healthCheckEndpoint: '/health',
    context: ({ request }) => {
      const context = createRequestContext(store, config, log, { requestId: request.headers.get('x-request-id'), clientSignal: request.signal });
      contexts.set(request, context);
      return context;
    },
    maskedErrors: { maskError: createMaskError(log) },
    logging: {
      debug: (...args) => log.debug(args.map(String).join(' ')),
      info: (...args) => log.info(args.map(String).join(' ')),
      warn: (...args) => log.warn(args.map(String).join(' ')),
      error: (...args) => log.error(args.map(String).join(' ')),
    },
    plugins: [
      {
        onResponse: ({ request, response }) => {
          const context = contexts.get(request);
          if (!context) return;
          response.headers.set('x-request-id', context.requestId);
          context.dispose();
        },
      },
      useQueryStatistics(),
      useReadinessCheck({
        endpoint: '/ready',
        check: async () => {
          await store.ping();
        },
      }),
    ],
  });

  // KairosDB's REST API shares the listener, the store and the request contexts; everything else is yoga's.
  const kairosRest = createKairosRestHandler({ store, config, log });
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (isKairosRestPath(req.url)) kairosRest(req, res);
    else void yoga.handle(req, res);
  };

  return { yoga, handle };
}

export interface ListeningGateway {
  readonly server: Server;
  /** `http://host:port` */
  readonly url: string;
  close(): Promise<void>;
}

/** Listens on host:port (0 picks a free port) and resolves once the socket is bound. */
export async function listen(handle: (req: IncomingMessage, res: ServerResponse) => void, host: string, port: number): Promise<ListeningGateway> {
  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
