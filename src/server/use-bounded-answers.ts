/**
 * GraphQL answers within the request's answer budget: the `data` of a result is written through the AnswerWriter
 * (counted, in chunks, yielding the thread between them) before yoga sends it; an answer over MAX_RESPONSE_BYTES
 * becomes a BUDGET_EXCEEDED error instead. Yoga's own result processor still negotiates the media type and status.
 */
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { BudgetExceededError } from '../errors.js';
import { AnswerWriter, writeJson } from './answer-writer.js';
import { toGraphQLError } from './mask-error.js';
import type { RequestContext } from './request-context.js';

/** `contextOf` finds the context yoga built for the request (create-gateway.ts keeps them). */
export function useBoundedAnswers(contextOf: (request: Request) => RequestContext | undefined): Plugin {
  return {
    async onResultProcess({ request, result, setResult }) {
      if (Array.isArray(result) || isAsyncIterable(result)) return;
      const ctx = contextOf(request);
      const { data } = result as ExecutionResult;
      if (ctx === undefined || data === null || data === undefined) return;
      const out = new AnswerWriter(ctx.budget, ctx.lane);
      let dataText: string;
      try {
        await writeJson(data, out);
        // Yoga's processor wants one string: GraphQL answers are joined once (REST sends its chunks as they are).
        dataText = out.finish().chunks.join('');
      } catch (error) {
        if (!(error instanceof BudgetExceededError)) throw error;
        setResult({ data: null, errors: [toGraphQLError(error)], ...(result.extensions ? { extensions: result.extensions } : {}) });
        return;
      }
      // Yoga's processor removes internal error fields, then calls the result's own `stringify` if it has one.
      const stringify = (sanitized: ExecutionResult): string => {
        let text = `{"data":${dataText}`;
        if (sanitized.errors !== undefined) text += `,"errors":${JSON.stringify(sanitized.errors)}`;
        if (sanitized.extensions !== undefined) text += `,"extensions":${JSON.stringify(sanitized.extensions)}`;
        return `${text}}`;
      };
      setResult(Object.assign({ ...result }, { stringify }));
    },
  };
}
