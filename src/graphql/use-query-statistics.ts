/**
 * Reports what each GraphQL request cost (src/app/statistics.ts), in the response (`extensions.statistics`) and the
 * request's log line. Grafana ignores extensions, so dashboards are unaffected.
 */
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestStatistics, type RequestStatistics } from '../app/statistics.js';
import type { GraphQLContext } from './context.js';
import type { RequestObserver } from '../http/request-observer.js';

/** Puts the request's statistics in the response, and gives the request's log line the same (request-observer.ts). */
export function useQueryStatistics(observer?: RequestObserver): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      const started = performance.now();
      const ctx = args.contextValue;
      const finish = (): RequestStatistics => {
        const statistics = requestStatistics(ctx, performance.now() - started);
        const exchange = observer?.forContext(ctx);
        if (exchange !== undefined) {
          exchange.statistics = statistics;
          exchange.operation = getOperationAST(args.document, args.operationName)?.name?.value ?? null;
        }
        return statistics;
      };
      return {
        onExecuteDone({ result, setResult }) {
          if ('data' in result || 'errors' in result) {
            setResult({ ...result, extensions: { ...result.extensions, statistics: finish() } });
            return;
          }
          // @defer and @stream: the whole request's statistics ride on its last part, once every query has run.
          return {
            onNext({ result: part, setResult: setPart }) {
              if ('hasNext' in part && part.hasNext === false)
                setPart({ ...part, extensions: { ...part.extensions, statistics: finish() } });
            },
          };
        },
      };
    },
  };
}
