/**
 * A span per GraphQL operation, the child of its HTTP request's span (src/http/request-observer.ts): while it runs,
 * the request's queries and index reads are its children. Named by the operation's type and name, as OpenTelemetry's
 * GraphQL conventions name it; with tracing off the request's span is NO_SPAN and this does nothing.
 */
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';

export function useTracing(): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      const ctx = args.contextValue;
      const parent = ctx.trace.span;
      if (!parent.recording) return;
      const operation = getOperationAST(args.document, args.operationName);
      const type = operation?.operation ?? 'query';
      const name = operation?.name?.value;
      const span = parent.child(name ? `${type} ${name}` : type, {
        'graphql.operation.type': type,
        ...(name ? { 'graphql.operation.name': name } : {}),
      });
      ctx.trace.span = span;
      const done = (errors: number) => {
        if (errors > 0) span.set({ 'kairograph.graphql_errors': errors });
        ctx.trace.span = parent;
        span.end();
      };
      let errors = 0;
      return {
        onExecuteDone({ result }) {
          if ('errors' in result || 'data' in result) return done(result.errors?.length ?? 0);
          // @defer and @stream: the operation ends with its last part.
          return {
            onNext({ result: part }) {
              errors += part.errors?.length ?? 0;
            },
            onEnd: () => done(errors),
          };
        },
      };
    },
  };
}
