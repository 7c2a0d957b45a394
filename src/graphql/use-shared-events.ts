/**
 * A subscription's events executed once for all its subscribers. The subscribers of one live computation that read
 * every update are handed the same event object (src/sharing/live-queries.ts); each event is executed once per
 * distinct operation (document, operation name, variables and principal: all an execution depends on besides the
 * event), and the subscribers of that operation share the result, so a write costs one execution per distinct
 * operation, not one per subscriber, and the result's point lists are rendered and encoded once.
 *
 * Events carry the statistics of the run that made them (`statistics`): the shared result carries them in
 * `extensions.statistics`, as a query's answer does.
 */
import { execute } from '@graphql-tools/executor';
import {
  createSourceEventStream,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  getOperationAST,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';

type Result = ExecutionResult | Promise<ExecutionResult>;

/** Results by event, then by operation: an event's entry goes with the event once no subscriber holds it. */
const results = new WeakMap<object, Map<string, Result>>();
const documentIds = new WeakMap<DocumentNode, number>();
let documents = 0;

export function useSharedEvents(): Plugin<GraphQLContext> {
  return {
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn(async (args: ExecutionArgs) => {
        // The engine's own subscribe when the stream cannot start, so refusals keep the engine's shape (a field's
        // subscribe that throws opened nothing, and throws again).
        if (getOperationAST(args.document, args.operationName)?.operation !== 'subscription') return subscribeFn(args);
        const source = await createSourceEventStream(args);
        if (!(Symbol.asyncIterator in source)) return subscribeFn(args);
        const key = operationKey(args);
        return sharedResults(source[Symbol.asyncIterator](), (event) => resultOf(event, key, args));
      });
    },
  };
}

/** Everything the execution of an event depends on besides the event. */
function operationKey(args: ExecutionArgs): string {
  let id = documentIds.get(args.document);
  if (id === undefined) documentIds.set(args.document, (id = ++documents));
  const { principal } = args.contextValue as GraphQLContext;
  return JSON.stringify([
    id,
    args.operationName ?? null,
    args.variableValues ?? null,
    principal.name,
    [...principal.scopes],
    principal.sources === undefined ? null : [...principal.sources],
  ]);
}

function resultOf(event: unknown, key: string, args: ExecutionArgs): Result {
  if (typeof event !== 'object' || event === null) return run(event, args);
  let byOperation = results.get(event);
  if (byOperation === undefined) results.set(event, (byOperation = new Map()));
  let result = byOperation.get(key);
  if (result === undefined) byOperation.set(key, (result = run(event, args)));
  return result;
}

async function run(event: unknown, args: ExecutionArgs): Promise<ExecutionResult> {
  const result = (await execute({ ...args, rootValue: event })) as ExecutionResult;
  const statistics = (event as { statistics?: unknown } | null)?.statistics;
  return statistics === undefined ? result : { ...result, extensions: { ...result.extensions, statistics } };
}

/**
 * The events' results, as a stream that ends the events' when it is returned. Not an async generator: one waiting
 * for the next event could not be returned when the client leaves.
 */
function sharedResults(
  events: AsyncIterator<unknown>,
  resultOf: (event: unknown) => Result,
): AsyncIterableIterator<ExecutionResult> {
  const it: AsyncIterableIterator<ExecutionResult> = {
    async next() {
      const next = await events.next();
      if (next.done) return { done: true, value: undefined };
      return { done: false, value: await resultOf(next.value) };
    },
    async return() {
      await events.return?.();
      return { done: true, value: undefined };
    },
    async throw(error: unknown) {
      await events.return?.();
      throw error;
    },
    [Symbol.asyncIterator]: () => it,
  };
  return it;
}
