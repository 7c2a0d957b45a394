/**
 * GraphQL over WebSocket (the graphql-ws protocol, `graphql-transport-ws`) on /graphql, beside SSE: Apollo Client's
 * GraphQLWsLink, urql's and graphql-ws's clients. Operations run through yoga's envelop (`getEnveloped`), so the
 * schema's plugins apply as on HTTP: armor's limits, answer and field scopes, error codes and masking, statistics.
 * Yoga's HTTP-only hooks do not run on a socket, so what they decide is decided here the same way: the edge's checks
 * on the upgrade, credentials (from the upgrade's headers or connection_init's payload), the persisted-operations
 * policy, and the answer's size.
 */
import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { requestStatistics } from '../app/statistics.js';
import type { ExecutionArgs, ExecutionResult, GraphQLError } from 'graphql';
import { CloseCode, type SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { createGraphQLError, type YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer, type WebSocket } from 'ws';
import { TOKEN_HEADER, type Authenticator } from '../http/auth.js';
import type { Caller, HttpEdge } from '../http/edge.js';
import { Gauge, type Registry } from 'prom-client';
import { BudgetExceededError, KairographError, OverloadedError } from '../model/errors.js';
import type { GraphQLContext } from './context.js';
import { isGraphQLError, toGraphQLError, withoutHttpExtension } from './mask-error.js';
import { hashText, PERSISTED_QUERY_NOT_FOUND, type PersistedManifest } from './persisted-operations.js';

interface WebSocketSettings {
  /** MAX_WEBSOCKETS: sockets open at once, over all clients. */
  readonly maxWebSockets: number;
  /** WEBSOCKET_MAX_OPERATIONS: operations one socket may run at once. */
  readonly webSocketMaxOperations: number;
  /** MAX_RESPONSE_BYTES: the largest message a result may become, as an HTTP answer may. */
  readonly maxResponseBytes: number;
}

export interface GraphQLWebSocketDeps {
  readonly yoga: YogaServerInstance<object, GraphQLContext>;
  readonly edge: HttpEdge;
  readonly auth: Authenticator;
  readonly manifest: PersistedManifest;
  readonly settings: WebSocketSettings;
}

/** Largest message a client may send (an operation's text and variables); past it ws closes the socket with 1009. */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** Ping every so often; a socket without a pong by the next ping is dropped (graphql-ws's ws adapter). */
const KEEP_ALIVE_MS = 12_000;
/** A socket that has not sent connection_init within this is closed with 4408, so idle sockets hold no place. */
const INIT_TIMEOUT_MS = 3_000;
/** How long the gateway's stop waits for clients to answer a socket's close. */
const CLOSE_GRACE_MS = 1_000;
/** Close codes of our own, in the application's range beside graphql-ws's. */
const CLOSE_RATE_LIMITED = 4429;

/** What a connection keeps between messages: who it is, and the contexts of its operations under way. */
interface Connection {
  caller?: Caller;
  readonly operations: Map<
    string,
    {
      readonly ctx: GraphQLContext;
      readonly abort: AbortController;
      readonly started: number;
      readonly name: string | null;
    }
  >;
}

export interface GraphQLWebSocket {
  /** The listener's `upgrade` event. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every socket (1001, going away), as the gateway stops. */
  close(): Promise<void>;
  /** Sockets open now, and operations under way on them (the gateway's /metrics). */
  readonly sockets: number;
  readonly operations: number;
}

/** The encoded size of each result sent, while it is in use. */
const messageBytes = new WeakMap<ExecutionResult, number>();

export function createGraphQLWebSocket(deps: GraphQLWebSocketDeps): GraphQLWebSocket {
  const { yoga, edge, auth, manifest, settings } = deps;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const connections = new WeakMap<WebSocket, Connection>();
  /** Whether the upgrade's own headers may carry credentials (not for an origin let in by CORS_ORIGINS=* only). */
  const ambient = new WeakMap<IncomingMessage, boolean>();
  const connectionOf = (socket: WebSocket): Connection => {
    let connection = connections.get(socket);
    if (connection === undefined) connections.set(socket, (connection = { operations: new Map() }));
    return connection;
  };
  let operations = 0;
  const end = (connection: Connection, id: string): void => {
    const operation = connection.operations.get(id);
    if (operation === undefined) return;
    connection.operations.delete(id);
    operations--;
    operation.abort.abort();
    if (connection.caller !== undefined) edge.charge(connection.caller.client, operation.ctx);
    operation.ctx.dispose();
    // One line per operation, as an HTTP request has: a socket's operations are its requests.
    const ms = performance.now() - operation.started;
    operation.ctx.log.info(
      {
        api: 'graphql',
        transport: 'websocket',
        principal: operation.ctx.principal.name,
        operation: operation.name,
        ms: Math.round(ms * 100) / 100,
        statistics: requestStatistics(operation.ctx, ms),
      },
      'graphql websocket operation',
    );
  };

  const server = useServer<Record<string, unknown>>(
    {
      connectionInitWaitTimeout: INIT_TIMEOUT_MS,
      // An unexpected error closes the socket with 4500 and a fixed reason, whatever NODE_ENV says: its message could
      // name internals (graphql-ws writes it to stderr).
      isProd: true,
      execute: (args) => (args.rootValue as Executors).execute(args),
      subscribe: (args) => (args.rootValue as Executors).subscribe(args),
      async onConnect(ctx) {
        const { socket, request } = ctx.extra;
        try {
          const caller = await edge.callerOf(
            presentedCredentials(ctx.connectionParams, ambient.get(request) ? request.headers : {}),
            request.socket.remoteAddress ?? '',
          );
          if (caller.principal.scopes.size === 0) {
            // Nothing it could ask would be answered: say so once, as HTTP's 401/403 would.
            close(
              socket,
              caller.principal.authenticated ? CloseCode.Forbidden : CloseCode.Unauthorized,
              noScopes(caller),
            );
            return false;
          }
          connectionOf(socket).caller = caller;
          return true;
        } catch (error) {
          if (!(error instanceof KairographError)) throw error;
          close(socket, closeCode(error), `${error.code}: ${error.message}`);
          return false;
        }
      },
      async onSubscribe(ctx, id, payload) {
        const connection = connectionOf(ctx.extra.socket);
        const caller = connection.caller!;
        if (connection.operations.size >= settings.webSocketMaxOperations) {
          return [
            toGraphQLError(
              new OverloadedError(
                `this socket already runs ${connection.operations.size} operations, its WEBSOCKET_MAX_OPERATIONS; complete one or open another socket`,
                1,
              ),
            ),
          ];
        }
        const text = documentText(payload, auth.mayQueryFreely(caller.principal), manifest);
        if (typeof text !== 'string') return [text];
        const abort = new AbortController();
        // The context factory (graphql-server.ts) reads the caller and the client's signal from a request.
        const request = new Request('http://websocket/graphql', { method: 'POST', signal: abort.signal });
        const enveloped = yoga.getEnveloped({ request, req: ctx.extra.request, caller, params: payload });
        let document: ExecutionArgs['document'];
        try {
          document = enveloped.parse(text);
          const errors: readonly GraphQLError[] = enveloped.validate(enveloped.schema, document);
          if (errors.length > 0) return errors.map((error) => coded(error, 'GRAPHQL_VALIDATION_FAILED'));
        } catch (error) {
          if (isGraphQLError(error)) return [coded(error, 'GRAPHQL_PARSE_FAILED')];
          throw error;
        }
        const contextValue = (await enveloped.contextFactory()) as GraphQLContext;
        operations++;
        connection.operations.set(id, {
          ctx: contextValue,
          abort,
          started: performance.now(),
          name: payload.operationName ?? null,
        });
        return {
          schema: enveloped.schema,
          document,
          operationName: payload.operationName ?? null,
          variableValues: payload.variables ?? null,
          contextValue,
          rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe } as Executors,
        };
      },
      onNext(_ctx, _id, _payload, _args, result) {
        const message = result.errors ? { ...result, errors: result.errors.map(withoutHttpExtension) } : result;
        // One message at a time per operation (graphql-ws awaits each send), so a socket holds at most its
        // operations' last messages: each is bounded as an HTTP answer is. Subscribers of one live query share
        // their results (use-shared-events.ts), so a result is measured once.
        let bytes = messageBytes.get(result);
        if (bytes === undefined) messageBytes.set(result, (bytes = Buffer.byteLength(JSON.stringify(message))));
        if (bytes <= settings.maxResponseBytes) return message;
        const error = new BudgetExceededError('request', 'bytes', settings.maxResponseBytes, 'MAX_RESPONSE_BYTES');
        return { data: null, errors: [withoutHttpExtension(toGraphQLError(error))] };
      },
      onError: (_ctx, _id, _payload, errors) => errors.map(withoutHttpExtension),
      onComplete: (ctx, id) => end(connectionOf(ctx.extra.socket), id),
      onClose(ctx) {
        const connection = connectionOf(ctx.extra.socket);
        for (const id of [...connection.operations.keys()]) end(connection, id);
      },
    },
    wss,
    KEEP_ALIVE_MS,
  );

  let closing: Promise<void> | undefined;
  return {
    get sockets() {
      return wss.clients.size;
    },
    get operations() {
      return operations;
    },
    upgrade(req, socket, head) {
      // A response on the upgrade's socket, so the edge checks, answers, logs and counts an upgrade it refuses as it
      // does any request; one it lets through is handed to ws with no response written.
      const res = new ServerResponse(req);
      res.shouldKeepAlive = false;
      res.assignSocket(socket as Socket);
      // Node's server ends a connection after its last response; this response is none of its own.
      res.once('finish', () => socket.end());
      const accepted = edge.accept(req, res);
      if (accepted === undefined) return;
      let refusal: KairographError | undefined;
      if (accepted.path !== '/graphql')
        refusal = new KairographError('NOT_FOUND', `WebSockets are served on /graphql only, not on ${accepted.path}`);
      else if (wss.clients.size >= settings.maxWebSockets)
        refusal = new OverloadedError(
          `the gateway serves ${wss.clients.size} WebSockets, its MAX_WEBSOCKETS; subscribe over SSE meanwhile`,
          5,
        );
      if (refusal !== undefined) {
        edge.refuse(req, res, 'graphql', refusal);
        return;
      }
      res.detachSocket(socket as Socket);
      ambient.set(req, edge.ambientCredentials(req));
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    },
    close: async () => {
      // Each socket is sent 1001 (going away); one whose client does not answer the close within a second is cut,
      // or the gateway's stop would wait for ws's own 30 s timeout.
      const cut = setTimeout(() => {
        for (const socket of wss.clients) socket.terminate();
      }, CLOSE_GRACE_MS);
      closing ??= Promise.resolve(server.dispose());
      await closing.finally(() => clearTimeout(cut));
    },
  };
}

/** The enveloped executors an operation runs with, handed to graphql-ws's execute and subscribe as the root value. */
interface Executors {
  readonly execute: (args: ExecutionArgs) => OperationResult;
  readonly subscribe: (args: ExecutionArgs) => OperationResult;
}

type OperationResult = Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;

/**
 * The credentials a connection presents: connection_init's payload (`Authorization` or `x-kairograph-token`, as a
 * browser's script must send them), else the upgrade's headers. One of them, never both mixed.
 */
function presentedCredentials(
  params: Readonly<Record<string, unknown>> | undefined,
  headers: IncomingMessage['headers'],
): { authorization?: string; token?: string } {
  const field = (name: string): unknown =>
    params === undefined ? undefined : Object.entries(params).find(([key]) => key.toLowerCase() === name)?.[1];
  const authorization = field('authorization');
  const token = field(TOKEN_HEADER);
  if (authorization !== undefined || token !== undefined) {
    if (
      (authorization !== undefined && typeof authorization !== 'string') ||
      (token !== undefined && typeof token !== 'string')
    )
      return { authorization: 'invalid' };
    return { ...(authorization !== undefined ? { authorization } : {}), ...(token !== undefined ? { token } : {}) };
  }
  const headerToken = headers[TOKEN_HEADER];
  return {
    ...(headers.authorization !== undefined ? { authorization: headers.authorization } : {}),
    ...(typeof headerToken === 'string' ? { token: headerToken } : {}),
  };
}

/** The operation's text: sent whole, or a persisted operation's by hash, under the same policy as HTTP's. */
function documentText(
  payload: SubscribePayload,
  maySendText: boolean,
  manifest: PersistedManifest,
): string | GraphQLError {
  if (typeof payload.query === 'string' && payload.query !== '') {
    if (maySendText) return payload.query;
    return createGraphQLError(
      `this gateway accepts only persisted operations (extensions.persistedQuery.sha256Hash); full query text needs credentials (connection_init's Authorization: Bearer, or ${TOKEN_HEADER})`,
      { extensions: { code: 'PERSISTED_QUERY_ONLY' } },
    );
  }
  const hash = (payload.extensions?.['persistedQuery'] as { sha256Hash?: unknown } | undefined)?.sha256Hash;
  if (hash === undefined)
    return createGraphQLError(
      'the operation has no query: send the query text, or a persisted operation as extensions.persistedQuery.sha256Hash',
      { extensions: { code: 'PERSISTED_QUERY_ID_REQUIRED' } },
    );
  const text = typeof hash === 'string' ? (manifest.get(`sha256:${hash}`) ?? manifest.get(hash)) : undefined;
  return (
    text ??
    createGraphQLError(PERSISTED_QUERY_NOT_FOUND, {
      extensions: {
        code: 'PERSISTED_QUERY_NOT_FOUND',
        hash: hashText(hash),
        hint: 'no persisted operation has this hash: send the query text',
      },
    })
  );
}

function coded(error: GraphQLError, code: string): GraphQLError {
  if (error.extensions['code'] !== undefined) return error;
  return createGraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    extensions: { ...error.extensions, code },
  });
}

/** graphql-ws's codes for refused credentials; our own for a client over its quota. */
function closeCode(error: KairographError): number {
  if (error.code === 'UNAUTHENTICATED') return CloseCode.Unauthorized;
  if (error.code === 'FORBIDDEN') return CloseCode.Forbidden;
  if (error.code === 'RATE_LIMITED') return CLOSE_RATE_LIMITED;
  return CloseCode.BadRequest;
}

function noScopes(caller: Caller): string {
  return caller.principal.authenticated
    ? `FORBIDDEN: "${caller.principal.name}" has no scope`
    : 'UNAUTHENTICATED: send credentials in connection_init: {"Authorization": "Bearer <token>"}';
}

/** A close frame's reason holds at most 123 bytes. */
function close(socket: WebSocket, code: number, reason: string): void {
  let short = reason;
  while (Buffer.byteLength(short) > 123) short = `${short.slice(0, -2)}…`;
  socket.close(code, short);
}

/** The sockets and their operations on the gateway's /metrics, read when scraped. */
export function registerWebSocketMetrics(registry: Registry, webSockets: GraphQLWebSocket): void {
  new Gauge({
    name: 'kairograph_websockets',
    help: 'GraphQL WebSockets open (graphql-ws), of at most MAX_WEBSOCKETS',
    registers: [registry],
    collect() {
      this.set(webSockets.sockets);
    },
  });
  new Gauge({
    name: 'kairograph_websocket_operations',
    help: 'Operations under way on them (subscriptions, and queries and mutations sent over a socket)',
    registers: [registry],
    collect() {
      this.set(webSockets.operations);
    },
  });
}
