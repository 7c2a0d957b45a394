// Readiness probe for run.sh: GET /api/v1/version on 127.0.0.1:<port>; prints "version=<v>" and exits 0 only if KairosDB
// itself answers (its version text proves the port is ours, not another process's), else exits 1.
const port = Number(process.argv[2]);
try {
  const response = await fetch(`http://127.0.0.1:${port}/api/v1/version`, { signal: AbortSignal.timeout(3000) });
  const text = await response.text();
  const version = /^KairosDB (\S+)$/.exec(JSON.parse(text).version ?? '')?.[1];
  if (response.status !== 200 || !version) throw new Error(`answered ${response.status}: ${text.slice(0, 200)}`);
  console.log(`version=${version}`);
} catch (err) {
  console.error(`http-ping 127.0.0.1:${port}: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
