// Readiness probe for run.sh: GET /-/ready, then /api/v1/status/buildinfo on 127.0.0.1:<port>; prints
// "version=<v>" and exits 0 only once Prometheus itself answers both (the buildinfo shape proves the port is ours),
// else exits 1.
const port = Number(process.argv[2]);
const base = `http://127.0.0.1:${port}`;
try {
  const ready = await fetch(`${base}/-/ready`, { signal: AbortSignal.timeout(3000) });
  if (ready.status !== 200) throw new Error(`/-/ready answered ${ready.status}`);
  const info = await fetch(`${base}/api/v1/status/buildinfo`, { signal: AbortSignal.timeout(3000) });
  const body = await info.json();
  if (info.status !== 200 || body.status !== 'success' || typeof body.data?.goVersion !== 'string')
    throw new Error(`buildinfo answered ${info.status}: ${JSON.stringify(body).slice(0, 200)}`);
  console.log(`version=${body.data.version || 'unknown'}`);
} catch (err) {
  console.error(`http-ping ${base}: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
