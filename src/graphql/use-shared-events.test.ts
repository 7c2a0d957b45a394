/**
 * An event handed to several subscribers is executed once per distinct operation (document, variables, principal),
 * and the subscribers of one operation share its result, statistics included.
 */
import { parse, type ExecutionResult } from 'graphql';
import { createGraphQLError, createSchema, createYoga } from 'graphql-yoga';
import { expect, it } from 'vitest';
import type { Principal } from '../model/principal.js';
import { useSharedEvents } from './use-shared-events.js';

/** The events every subscriber is handed, the same objects for all, as live queries hand them. */
const EVENTS = [
  { value: 1, statistics: { run: 1 } },
  { value: 2, statistics: { run: 2 } },
];
let executions = 0;

const yoga = createYoga({
  schema: createSchema({
    typeDefs: `
      type Query { ok: Boolean }
      type Tick { value: Int! times(k: Int!): Int! }
      type Subscription { tick: Tick! broken: Tick! }
    `,
    resolvers: {
      Subscription: {
        tick: {
          subscribe: async function* () {
            yield* EVENTS;
          },
          resolve: (event: (typeof EVENTS)[number]) => event,
        },
        broken: {
          subscribe: () => {
            throw createGraphQLError('no such stream', { extensions: { code: 'NO_STREAM' } });
          },
        },
      },
      Tick: {
        times: (event: (typeof EVENTS)[number], { k }: { k: number }) => {
          executions++;
          return event.value * k;
        },
      },
    },
  }),
  plugins: [useSharedEvents()],
  logging: false,
});

const reader: Principal = { name: 'reader', authenticated: true, scopes: new Set(['read']) };
const other: Principal = { name: 'other', authenticated: true, scopes: new Set(['read']) };
const DOCUMENT = parse('subscription ($k: Int!) { tick { value times(k: $k) } }');

async function results(principal: Principal, k: number): Promise<ExecutionResult[]> {
  const { subscribe, contextFactory, schema } = yoga.getEnveloped({ principal });
  const stream = (await subscribe({
    schema,
    document: DOCUMENT,
    variableValues: { k },
    contextValue: await contextFactory(),
  })) as AsyncIterable<ExecutionResult>;
  const out: ExecutionResult[] = [];
  for await (const result of stream) out.push(result);
  return out;
}

it('executes each event once per distinct operation, and hands its subscribers one result with its statistics', async () => {
  const [a, b, c, d] = await Promise.all([
    results(reader, 10),
    results(reader, 10),
    results(reader, 3),
    results(other, 10),
  ]);
  expect(a).toEqual([
    { data: { tick: { value: 1, times: 10 } }, extensions: { statistics: { run: 1 } } },
    { data: { tick: { value: 2, times: 20 } }, extensions: { statistics: { run: 2 } } },
  ]);
  expect(b[0]).toBe(a[0]);
  expect(b[1]).toBe(a[1]);
  expect(c.map((result) => result.data)).toEqual([{ tick: { value: 1, times: 3 } }, { tick: { value: 2, times: 6 } }]);
  // Another principal's operation is executed apart: field scopes and source limits are checked per principal.
  expect(d).toEqual(a);
  expect(d[0]).not.toBe(a[0]);
  // Two events, three distinct operations.
  expect(executions).toBe(6);
});

it('answers a subscription whose stream cannot start as the engine does', async () => {
  const { subscribe, contextFactory, schema } = yoga.getEnveloped({ principal: reader });
  const result = (await subscribe({
    schema,
    document: parse('subscription { broken { value } }'),
    contextValue: await contextFactory(),
  })) as ExecutionResult;
  expect(result.errors?.map((error) => [error.message, error.path, error.extensions['code']])).toEqual([
    ['no such stream', ['broken'], 'NO_STREAM'],
  ]);
});
