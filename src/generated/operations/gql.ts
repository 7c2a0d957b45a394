/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query LatencyBudgetCheck($from: Time = \"now-24h\") {\n  worstHourlyP99: series(\n    metric: \"http.request.latency\"\n    from: $from\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{percentile: {percentile: 0.99, sampling: {value: 1, unit: HOURS}}}, {max: {sampling: {value: 1, unit: DAYS}, alignSampling: false}}]\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n}": typeof types.LatencyBudgetCheckDocument,
    "query DashboardOverview($from: Time!, $to: Time, $intervalMs: Int = 60000) {\n  cpu: series(\n    metric: \"system.cpu.usage\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{avg: {sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n    fill: NULL\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n  latencyP99: series(\n    metric: \"http.request.latency\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"endpoint\"]}\n    aggregators: [{percentile: {percentile: 0.99, sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n  ) {\n    endpoint: tag(name: \"endpoint\")\n    points {\n      time\n      value\n    }\n  }\n  requestRate: series(\n    metric: \"http.requests\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{rate: {unit: SECONDS}}, {avg: {sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n}": typeof types.DashboardOverviewDocument,
    "subscription LiveSeries($metric: String!, $from: Time = \"now-10m\") {\n  liveSeries(metric: $metric, from: $from) {\n    kind\n    changes {\n      series {\n        points {\n          epochMs\n          value\n        }\n      }\n    }\n  }\n}": typeof types.LiveSeriesDocument,
    "query MetricCatalog($prefix: String = \"\") {\n  metricNames(prefix: $prefix)\n  hosts: tagValues(metric: \"system.cpu.usage\", tag: \"host\")\n}": typeof types.MetricCatalogDocument,
    "query PromqlChart($expression: String!, $from: Time!, $to: Time, $step: String!, $source: String) {\n  promql(\n    expression: $expression\n    from: $from\n    to: $to\n    step: $step\n    source: $source\n  ) {\n    name\n    metric\n    tags {\n      name\n      values\n    }\n    columns {\n      epochMs\n      value\n    }\n  }\n}": typeof types.PromqlChartDocument,
};
const documents: Documents = {
    "query LatencyBudgetCheck($from: Time = \"now-24h\") {\n  worstHourlyP99: series(\n    metric: \"http.request.latency\"\n    from: $from\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{percentile: {percentile: 0.99, sampling: {value: 1, unit: HOURS}}}, {max: {sampling: {value: 1, unit: DAYS}, alignSampling: false}}]\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n}": types.LatencyBudgetCheckDocument,
    "query DashboardOverview($from: Time!, $to: Time, $intervalMs: Int = 60000) {\n  cpu: series(\n    metric: \"system.cpu.usage\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{avg: {sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n    fill: NULL\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n  latencyP99: series(\n    metric: \"http.request.latency\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"endpoint\"]}\n    aggregators: [{percentile: {percentile: 0.99, sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n  ) {\n    endpoint: tag(name: \"endpoint\")\n    points {\n      time\n      value\n    }\n  }\n  requestRate: series(\n    metric: \"http.requests\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{rate: {unit: SECONDS}}, {avg: {sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n}": types.DashboardOverviewDocument,
    "subscription LiveSeries($metric: String!, $from: Time = \"now-10m\") {\n  liveSeries(metric: $metric, from: $from) {\n    kind\n    changes {\n      series {\n        points {\n          epochMs\n          value\n        }\n      }\n    }\n  }\n}": types.LiveSeriesDocument,
    "query MetricCatalog($prefix: String = \"\") {\n  metricNames(prefix: $prefix)\n  hosts: tagValues(metric: \"system.cpu.usage\", tag: \"host\")\n}": types.MetricCatalogDocument,
    "query PromqlChart($expression: String!, $from: Time!, $to: Time, $step: String!, $source: String) {\n  promql(\n    expression: $expression\n    from: $from\n    to: $to\n    step: $step\n    source: $source\n  ) {\n    name\n    metric\n    tags {\n      name\n      values\n    }\n    columns {\n      epochMs\n      value\n    }\n  }\n}": types.PromqlChartDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query LatencyBudgetCheck($from: Time = \"now-24h\") {\n  worstHourlyP99: series(\n    metric: \"http.request.latency\"\n    from: $from\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{percentile: {percentile: 0.99, sampling: {value: 1, unit: HOURS}}}, {max: {sampling: {value: 1, unit: DAYS}, alignSampling: false}}]\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n}"): (typeof documents)["query LatencyBudgetCheck($from: Time = \"now-24h\") {\n  worstHourlyP99: series(\n    metric: \"http.request.latency\"\n    from: $from\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{percentile: {percentile: 0.99, sampling: {value: 1, unit: HOURS}}}, {max: {sampling: {value: 1, unit: DAYS}, alignSampling: false}}]\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query DashboardOverview($from: Time!, $to: Time, $intervalMs: Int = 60000) {\n  cpu: series(\n    metric: \"system.cpu.usage\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{avg: {sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n    fill: NULL\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n  latencyP99: series(\n    metric: \"http.request.latency\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"endpoint\"]}\n    aggregators: [{percentile: {percentile: 0.99, sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n  ) {\n    endpoint: tag(name: \"endpoint\")\n    points {\n      time\n      value\n    }\n  }\n  requestRate: series(\n    metric: \"http.requests\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{rate: {unit: SECONDS}}, {avg: {sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n}"): (typeof documents)["query DashboardOverview($from: Time!, $to: Time, $intervalMs: Int = 60000) {\n  cpu: series(\n    metric: \"system.cpu.usage\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{avg: {sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n    fill: NULL\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n  latencyP99: series(\n    metric: \"http.request.latency\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"endpoint\"]}\n    aggregators: [{percentile: {percentile: 0.99, sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n  ) {\n    endpoint: tag(name: \"endpoint\")\n    points {\n      time\n      value\n    }\n  }\n  requestRate: series(\n    metric: \"http.requests\"\n    from: $from\n    to: $to\n    groupBy: {tags: [\"dc\"]}\n    aggregators: [{rate: {unit: SECONDS}}, {avg: {sampling: {value: $intervalMs, unit: MILLISECONDS}, alignStartTime: true}}]\n  ) {\n    dc: tag(name: \"dc\")\n    points {\n      time\n      value\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "subscription LiveSeries($metric: String!, $from: Time = \"now-10m\") {\n  liveSeries(metric: $metric, from: $from) {\n    kind\n    changes {\n      series {\n        points {\n          epochMs\n          value\n        }\n      }\n    }\n  }\n}"): (typeof documents)["subscription LiveSeries($metric: String!, $from: Time = \"now-10m\") {\n  liveSeries(metric: $metric, from: $from) {\n    kind\n    changes {\n      series {\n        points {\n          epochMs\n          value\n        }\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query MetricCatalog($prefix: String = \"\") {\n  metricNames(prefix: $prefix)\n  hosts: tagValues(metric: \"system.cpu.usage\", tag: \"host\")\n}"): (typeof documents)["query MetricCatalog($prefix: String = \"\") {\n  metricNames(prefix: $prefix)\n  hosts: tagValues(metric: \"system.cpu.usage\", tag: \"host\")\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query PromqlChart($expression: String!, $from: Time!, $to: Time, $step: String!, $source: String) {\n  promql(\n    expression: $expression\n    from: $from\n    to: $to\n    step: $step\n    source: $source\n  ) {\n    name\n    metric\n    tags {\n      name\n      values\n    }\n    columns {\n      epochMs\n      value\n    }\n  }\n}"): (typeof documents)["query PromqlChart($expression: String!, $from: Time!, $to: Time, $step: String!, $source: String) {\n  promql(\n    expression: $expression\n    from: $from\n    to: $to\n    step: $step\n    source: $source\n  ) {\n    name\n    metric\n    tags {\n      name\n      values\n    }\n    columns {\n      epochMs\n      value\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;