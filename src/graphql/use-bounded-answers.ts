/**
 * GraphQL answers within the request's answer budget: the `data` of a result is written through the AnswerWriter
 * (counted, in chunks, yielding the thread between them, and compressed as it goes when the client takes it so)
 * before yoga sends it; an answer over MAX_RESPONSE_BYTES becomes a BUDGET_EXCEEDED error instead. Yoga's own result
 * processor still negotiates the media type and status and cleans the errors; the written answer then replaces the
 * body of its response.
 */
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { BudgetExceededError } from '../model/errors.js';
import { AnswerWriter, writeJson, type Answer } from '../http/answer-writer.js';
import { answerEncoding, type CompressionOptions } from '../http/compression.js';
import { toGraphQLError } from './mask-error.js';
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
      if (Array.isArray(result) || isAsyncIterable(result)) return;
      const ctx = contextOf(request);
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
