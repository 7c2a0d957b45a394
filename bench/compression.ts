/**
 * What the compression levels and the size threshold rest on. Takes three real answers from the production build
 * (embedded store, demo dataset): REST's 3 days of raw CPU points, a GraphQL dashboard (3 days, 1-minute averages
 * per host) and the largest GraphQL answer at the default budgets (6 aliases of 3 days of raw points). Each is
 * streamed through zlib in 64 KiB chunks, as the gateway does, at several gzip levels and windows and brotli
 * qualities: bytes out, CPU (every thread of this process: zlib works on libuv's pool), the main thread's share, and
 * the longest the event loop went without running a timer (which, on a busy machine, also counts time the OS gave the
 * thread to others).
 * A level pays when its CPU costs less than the time its saved bytes take on a 1 Gbit/s link (8 ms per MB), and a
 * higher level is worth it when its extra CPU is less than its extra saving. Then each answer written by the gateway's
 * AnswerWriter, compressed as it is written (how long the compression runs on after the last chunk), the fixed cost of
 * compressing small answers, and each answer end to end over HTTP as identity, gzip and br.
 *
 *   npm run bench:compression [-- --runs 3]
 */
import { performance } from 'node:perf_hooks';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { constants, createBrotliCompress, createGzip, type Gzip, type BrotliCompress } from 'node:zlib';
import { AnswerWriter, writeJson } from '../src/http/answer-writer.js';
import { GZIP_WINDOW_BITS, textChunks } from '../src/http/compression.js';
import { Lane } from '../src/lib/time-slice.js';
import { build, startDemoServer } from './demo-server.js';
import { median, parseArgs } from './measure.js';

const args = parseArgs(process.argv.slice(2));
const RUNS = Number(args.get('runs') ?? 3);
const DIR = fileURLToPath(new URL('..', import.meta.url));
/** Nanoseconds a byte takes at 1 Gbit/s. */
const NS_PER_BYTE = 8;

const ANSWERS = {
  'REST, 3 days of raw CPU points (6 hosts)': {
    path: '/api/v1/datapoints/query',
    body: { start_relative: { value: 3, unit: 'days' }, metrics: [{ name: 'system.cpu.usage' }] },
  },
  'GraphQL dashboard, 3 days of 1-minute averages per host': {
    path: '/graphql',
    body: {
      query:
        '{ cpu: series(metric: "system.cpu.usage", from: "now-3d", groupBy: { tags: ["host"] }, aggregators: [{ avg: { sampling: { value: 1, unit: MINUTES } } }]) { host: tag(name: "host") points { time epochMs value } } }',
    },
  },
  'GraphQL, 6 aliases of 3 days of raw points (933,120 points)': {
    path: '/graphql',
    body: {
      query: `{ ${Array.from({ length: 6 }, (_, i) => `a${i}: series(metric: "system.cpu.usage", from: "now-3d") { points { epochMs value } }`).join('\n')} }`,
    },
  },
} as const;

/** A coding, its level, and for gzip its window (zlib's windowBits; 15 when absent). */
type Level = readonly ['gzip' | 'br', number, number?];
const LEVELS: readonly Level[] = [
  ['gzip', 1],
  ['gzip', 1, 13],
  ['gzip', 1, GZIP_WINDOW_BITS],
  ['gzip', 1, 11],
  ['gzip', 3],
  ['gzip', 6],
  ['br', 0],
  ['br', 1],
  ['br', 2],
  ['br', 4],
  ['br', 5],
];

console.log(`command: npm run bench:compression -- --runs ${RUNS}`);
console.log(`node ${process.version}; ${new Date().toISOString()}; medians of ${RUNS} runs after a warm-up`);
build(DIR);
const server = await startDemoServer(DIR, { COMPRESSION_MIN_BYTES: '0' });
try {
  const texts: [string, string][] = [];
  for (const [name, { path, body }] of Object.entries(ANSWERS)) {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'identity' },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`${name}: ${response.status}`);
    texts.push([name, await response.text()]);
  }

  for (const [name, text] of texts) {
    const bytes = Buffer.byteLength(text);
    console.log(`\n${name}: ${mb(bytes)} MB`);
    // The cheapest level of each coding, to show what each higher one adds: extra CPU against extra bytes saved.
    const cheapest = new Map<string, { cpuMs: number; savedMs: number }>();
    for (const [coding, level, windowBits] of LEVELS) {
      // gzip 6 on the largest answer is slow and here to show the trend; one run of it is enough.
      const runs = coding === 'gzip' && level >= 6 && bytes > 10e6 ? 1 : RUNS;
      await compress(text, coding, level, windowBits);
      const results = [];
      for (let run = 0; run < runs; run++) results.push(await compress(text, coding, level, windowBits));
      const out = results[0]!.bytes;
      const cpuMs = median(results.map((r) => r.cpuMs));
      const savedMs = ((bytes - out) * NS_PER_BYTE) / 1e6;
      const base = cheapest.get(coding);
      if (base === undefined) cheapest.set(coding, { cpuMs, savedMs });
      const extra =
        base === undefined
          ? ''
          : `; over ${coding} ${LEVELS.find(([c]) => c === coding)![1]}: +${fmt(cpuMs - base.cpuMs)} ms CPU for +${fmt(savedMs - base.savedMs)} ms`;
      console.log(
        `  ${`${coding} ${level}${windowBits === undefined ? '' : ` w${windowBits}`}`.padEnd(11)} ${mb(out).padStart(6)} MB (${((100 * out) / bytes).toFixed(1).padStart(4)}%)  CPU ${fmt(cpuMs).padStart(5)} ms = ${(bytes / 1e6 / (cpuMs / 1000)).toFixed(0).padStart(4)} MB/s  ` +
          `wall ${fmt(median(results.map((r) => r.wallMs))).padStart(5)} ms  main thread busy ${fmt(median(results.map((r) => r.loopBusyMs))).padStart(4)} ms, longest gap ${fmt(Math.max(...results.map((r) => r.maxLoopMs))).padStart(4)} ms  ` +
          `saves ${fmt(savedMs).padStart(4)} ms at 1 Gbit/s: ${savedMs > cpuMs ? 'pays' : 'costs more than it saves'}${extra}`,
      );
    }
  }

  // The answers as the gateway writes them: AnswerWriter compresses while the thread writes the JSON, and the answer
  // can go once the compression has caught up with the last chunk written.
  console.log(
    "\nwritten through the AnswerWriter, compressed as written (writing; then the compression's tail after the last chunk):",
  );
  for (const [name, text] of texts) {
    const value: unknown = JSON.parse(text);
    const cells: string[] = [];
    for (const coding of ['gzip', 'br'] as const) {
      const writes: number[] = [];
      const tails: number[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const out = new AnswerWriter(undefined, new Lane(), { coding, minBytes: 0 });
        const started = performance.now();
        await writeJson(value, out);
        const written = performance.now();
        const answer = await out.finish();
        if (answer.bytes !== Buffer.byteLength(text))
          throw new Error(`${name}: the writer wrote ${answer.bytes} bytes, not ${Buffer.byteLength(text)}`);
        if (run === 0) continue;
        writes.push(written - started);
        tails.push(performance.now() - written);
      }
      cells.push(`${coding} ${fmt(median(writes))} ms, then ${fmt(median(tails))} ms`);
    }
    console.log(`  ${name}: ${cells.join(' | ')}`);
  }

  // Small answers: the first bytes of the dashboard answer. What each compressed answer costs at least.
  const [, dashboard] = texts[1]!;
  console.log('\nsmall answers (the first bytes of the dashboard answer), 200 compressions each:');
  for (const size of [1024, 4096, 16_384, 32_768, 65_536]) {
    const text = dashboard.slice(0, size);
    const cells: string[] = [];
    for (const [coding, level] of [
      ['gzip', 1],
      ['br', 1],
    ] as const) {
      const windowBits = coding === 'gzip' ? GZIP_WINDOW_BITS : undefined;
      for (let i = 0; i < 50; i++) await compress(text, coding, level, windowBits);
      const cpu = process.cpuUsage();
      let out = 0;
      for (let i = 0; i < 200; i++) out = (await compress(text, coding, level, windowBits)).bytes;
      const { user, system } = process.cpuUsage(cpu);
      const cpuUs = (user + system) / 200;
      cells.push(
        `${coding} ${level}: ${out} B, CPU ${cpuUs.toFixed(0)} µs vs ${(((size - out) * NS_PER_BYTE) / 1000).toFixed(0)} µs saved at 1 Gbit/s`,
      );
    }
    console.log(`  ${String(size).padStart(6)} B: ${cells.join('; ')}`);
  }

  console.log('\nend to end over HTTP (this process receives and decodes; server CPU from /proc):');
  for (const [name, { path, body }] of Object.entries(ANSWERS)) {
    const cells: string[] = [];
    for (const accept of ['identity', 'gzip', 'br']) {
      const wall: number[] = [];
      const cpu: number[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const cpuBefore = server.cpuMs();
        const started = performance.now();
        const response = await fetch(`${server.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': accept },
          body: JSON.stringify(body),
        });
        // undici decodes as it reads; what the server sent is counted once below, from a raw read.
        await response.arrayBuffer();
        if (run === 0) continue;
        wall.push(performance.now() - started);
        cpu.push(server.cpuMs() - cpuBefore);
      }
      const wire = await wireBytes(server.url, path, body, accept);
      cells.push(`${accept} ${mb(wire)} MB, ${fmt(median(wall))} ms, server CPU ${fmt(median(cpu))} ms`);
    }
    console.log(`  ${name}: ${cells.join(' | ')}`);
  }
} finally {
  await server.stop();
}

interface Compressed {
  readonly bytes: number;
  readonly cpuMs: number;
  readonly wallMs: number;
  /** The longest the event loop went without running a 1 ms timer. */
  readonly maxLoopMs: number;
  /** Time the event loop spent running callbacks (converting chunks to bytes, zlib's callbacks), not waiting. */
  readonly loopBusyMs: number;
}

/** Streams `text` through a compressor in the gateway's 64 KiB pieces; times it and watches the event loop. */
async function compress(text: string, coding: 'gzip' | 'br', level: number, windowBits = 15): Promise<Compressed> {
  const compressor: Gzip | BrotliCompress =
    coding === 'gzip'
      ? createGzip({ level, windowBits, chunkSize: 64 * 1024 })
      : createBrotliCompress({
          chunkSize: 64 * 1024,
          params: {
            [constants.BROTLI_PARAM_QUALITY]: level,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text),
          },
        });
  let bytes = 0;
  let maxLoopMs = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    maxLoopMs = Math.max(maxLoopMs, now - last);
    last = now;
  }, 1);
  const cpu = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  const started = performance.now();
  await pipeline(
    Readable.from(textChunks(text)),
    compressor,
    new Writable({
      write(chunk: Buffer, _, done) {
        bytes += chunk.length;
        done();
      },
    }),
  );
  const wallMs = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  const loopBusyMs = performance.eventLoopUtilization(loop).active;
  clearInterval(ticker);
  maxLoopMs = Math.max(maxLoopMs, performance.now() - last);
  return { bytes, cpuMs: (user + system) / 1000, wallMs, maxLoopMs, loopBusyMs };
}

/** The bytes the server sends for a request, read raw (no decoding) with node:http. */
async function wireBytes(url: string, path: string, body: unknown, accept: string): Promise<number> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': accept },
      },
      (res) => {
        let n = 0;
        res.on('data', (chunk: Buffer) => (n += chunk.length));
        res.on('end', () => resolve(n));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(2);
}

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}
