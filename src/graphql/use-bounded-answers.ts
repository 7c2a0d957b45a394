/**
 * GraphQL answers within the request's answer budget: the `data` of a result is written through the AnswerWriter
 * (counted, in chunks, yielding the thread between them, and compressed as it goes when the client takes it so)
 * before yoga sends it; an answer over MAX_RESPONSE_BYTES becomes a BUDGET_EXCEEDED error instead. Yoga's own result
 * processor still negotiates the media type and status and cleans the errors; the written answer then replaces the
 * body of its response. An answer sent as events (SSE, multipart: a query's @defer/@stream parts, a subscription's
 * events, a plain query asked as text/event-stream) is bounded part by part: a query's parts count together against
 * the request's MAX_RESPONSE_BYTES, a subscription's events one at a time, and a part over it is sent as the
 * BUDGET_EXCEEDED error that ends the stream.
 */
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { RequestBudget } from '../engine/budget.js';
import { BudgetExceededError } from '../model/errors.js';
import { AnswerWriter, writeJson, type Answer } from '../http/answer-writer.js';
import { answerEncoding, type CompressionOptions } from '../http/compression.js';
import { toGraphQLError, withoutHttpExtension } from './mask-error.js';
import { answerResponse } from './use-compression.js';
import type { GraphQLContext } from './context.js';

/** `contextOf` finds the context yoga built for the request (create-gateway.ts keeps them). */
export function useBoundedAnswers(
  contextOf: (request: Request) => GraphQLContext | undefined,
  compression: CompressionOptions,
): Plugin {
  /** Answers written for their requests, until yoga's response for them is made. */
  const answers = new WeakMap<Request, Promise<Answer>>();
  return {
    async onResultProcess({ request, result, setResult }) {
      if (Array.isArray(result)) return;
      const ctx = contextOf(request);
      if (isAsyncIterable(result)) {
        if (ctx !== undefined) setResult(boundedParts(result as AsyncIterable<Part>, ctx.budget) as typeof result);
        return;
      }
      if (!answeredAsJson(request)) {
        // Yoga's SSE and multipart processors stringify the result as an event, never through `stringify` below.
        if (ctx !== undefined) setResult(boundedPart(result as Part, ctx.budget, 'request') as typeof result);
        return;
      }
      const { data } = result as ExecutionResult;
      if (ctx === undefined || data === null || data === undefined) return;
      const out = new AnswerWriter(
        ctx.budget,
        ctx.lane,
        answerEncoding(request.headers.get('accept-encoding'), compression),
      );
      try {
        out.write('{"data":');
        await writeJson(data, out);
        out.flush();
      } catch (error) {
        out.discard();
        if (!(error instanceof BudgetExceededError)) throw error;
        setResult({
          data: null,
          errors: [toGraphQLError(error)],
          ...(result.extensions ? { extensions: result.extensions } : {}),
        });
        return;
      }
      // Yoga's processor removes internal error fields, then calls the result's own `stringify` if it has one: the
      // answer's errors and statistics close it there, and its body is the written answer (onResponse), not this text.
      const stringify = (sanitized: ExecutionResult): string => {
        let closing = '';
        if (sanitized.errors !== undefined) closing += `,"errors":${JSON.stringify(sanitized.errors)}`;
        if (sanitized.extensions !== undefined) closing += `,"extensions":${JSON.stringify(sanitized.extensions)}`;
        const answer = out.finish(`${closing}}`);
        // Awaited in onResponse; until then a failed compression must not count as an unhandled rejection.
        answer.catch(() => undefined);
        answers.set(request, answer);
        return '';
      };
      setResult(Object.assign({ ...result }, { stringify }));
    },
    async onResponse({ request, response, setResponse, fetchAPI }) {
      const written = answers.get(request);
      if (written === undefined) return;
      answers.delete(request);
      setResponse(answerResponse(await written, response, fetchAPI));
    },
  };
}

/**
 * Whether yoga answers a single result as JSON: it does when the request accepts a JSON media type at all (its result
 * processors are tried in the order SSE, multipart, JSON, and the last that matches wins), else as one event.
 */
function answeredAsJson(request: Request): boolean {
  return (request.headers.get('accept') || '*/*')
    .replace(/\s/g, '')
    .toLowerCase()
    .split(',')
    .some((accept) => {
      const [type = '', subtype] = accept.split(';')[0]!.split('/');
      return (type === '*' || type === 'application') && ['*', 'json', 'graphql-response+json'].includes(subtype ?? '');
    });
}

/** A result or a part as it is sent: errors may be formatted already, a later part has `incremental` entries. */
interface Part {
  readonly data?: unknown;
  readonly errors?: readonly unknown[];
  readonly extensions?: unknown;
  readonly hasNext?: boolean;
  readonly incremental?: readonly {
    readonly path?: readonly (string | number)[];
    readonly label?: string;
    readonly items?: unknown;
    readonly data?: unknown;
    readonly errors?: readonly unknown[];
  }[];
}

/**
 * Each part as it is pulled, counted: a query's parts (they carry `hasNext`) against the request's budget together,
 * as one request's answer; a subscription's events each against the limit, since a live query runs without end. The
 * wrapper forwards `return` at once (a client leaving mid-wait must end a live query now, not at its next event).
 */
function boundedParts(parts: AsyncIterable<Part>, budget: RequestBudget): AsyncIterableIterator<Part> {
  const inner = parts[Symbol.asyncIterator]();
  let stopped = false;
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (stopped) return { done: true, value: undefined };
      const next = await inner.next();
      if (next.done) return next;
      const part = next.value;
      const bounded = boundedPart(part, budget, part.hasNext === undefined ? 'event' : 'request');
      if (bounded === part) return next;
      stopped = true;
      void inner.return?.();
      return { done: false, value: bounded };
    },
    async return() {
      stopped = true;
      await inner.return?.();
      return { done: true, value: undefined };
    },
  };
}

/** The part itself, or, when it goes over, the error in its place (the last part of a query's stream). */
function boundedPart(part: Part, budget: RequestBudget, counted: 'request' | 'event'): Part {
  const bytes = Buffer.byteLength(JSON.stringify(part));
  let error: BudgetExceededError;
  try {
    if (counted === 'request') budget.addAnswerBytes(bytes);
    else if (bytes > budget.limits.maxAnswerBytes)
      throw new BudgetExceededError('request', 'bytes', budget.limits.maxAnswerBytes, 'MAX_RESPONSE_BYTES');
    return part;
  } catch (thrown) {
    if (!(thrown instanceof BudgetExceededError)) throw thrown;
    error = thrown;
  }
  // A part's errors are JSON in an event, with no HTTP status to give.
  const errors = [withoutHttpExtension(toGraphQLError(error))];
  if (part.hasNext === undefined) return { data: null, errors };
  const first = part.incremental?.[0];
  if (first === undefined) return { data: null, errors, hasNext: false };
  // A later part: its first entry's place, with the error instead of its data or items.
  return {
    incremental: [
      {
        ...(first.label !== undefined ? { label: first.label } : {}),
        path: first.path ?? [],
        ...('items' in first ? { items: null } : { data: null }),
        errors,
      },
    ],
    hasNext: false,
  };
}
