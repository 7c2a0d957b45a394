/**
 * Resolvers of schema.graphql, assembled: the scalars, the Query, Mutation and Subscription roots and the object
 * types. They translate arguments into the query model and read through the request's scope.
 */
import type { Resolvers } from '../generated/graphql.js';
import { livePromqlResolver } from './live-promql.js';
import { liveSeriesResolver } from './live-series.js';
import { mutationResolvers } from './mutation-resolvers.js';
import { queryResolvers } from './query-resolvers.js';
import { LongScalar, PointValueScalar, TimeScalar } from './scalars.js';
import { typeResolvers } from './type-resolvers.js';

export const resolvers: Resolvers = {
  Time: TimeScalar,
  Long: LongScalar,
  PointValue: PointValueScalar,
  Query: queryResolvers,
  Mutation: mutationResolvers,
  Subscription: { liveSeries: liveSeriesResolver, livePromql: livePromqlResolver },
  ...typeResolvers,
};
