/**
 * The query GraphiQL opens with: it runs against the demo dataset as it is, so a first visit shows real data.
 */
export const DEFAULT_GRAPHIQL_QUERY = `# Kairograph: GraphQL over KairosDB time series.
# Press the run button. Times take epoch ms,
# ISO-8601 text or relative times ("now-1h", "now/d").
# series() aggregates; the Docs pane lists all.
query Overview {
  metricNames
  hosts: tagValues(metric: "system.cpu.usage", tag: "host")
  cpu: rawSeries(
    metric: "system.cpu.usage"
    from: "now-2m"
    where: [{ tag: "host", in: ["web-01", "web-02"] }]
  ) {
    host: tag(name: "host")
    points {
      time
      value
    }
  }
}
`;
