/**
 * Process entry (`kairograph`, `npm start`). graphql-js and graphql-armor choose their production builds as they
 * load: without NODE_ENV set, graphql's instanceOf runs a development check on every type test, a visible part of
 * the CPU of a large GraphQL answer. So the environment is set first and the gateway loaded only when the command
 * starts it (`--help` and `hash-secret` need none of it). The heap's growing factor is fixed before the first request
 * (gateway/heap-growth.ts: a large scan's CPU went to needless full GCs).
 */
process.env.NODE_ENV ??= 'production';
const { runCli } = await import('./gateway/cli.js');
const code = await runCli(process.argv.slice(2), async () => {
  const { fixHeapGrowth } = await import('./gateway/heap-growth.js');
  fixHeapGrowth();
  const { main } = await import('./gateway/start.js');
  await main();
});
if (code !== undefined) process.exitCode = code;
