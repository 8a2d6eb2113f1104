/**
 * `voicewire latency` (src/latency) measured against known delays, and its own cost.
 *
 *   npm run bench -- latencyCommand
 *
 * Accuracy: the local service (in a child process, so its work never delays the events timed
 * here) injects a first-byte delay and a mid-stream stall (src/service/faults.ts) on one of two
 * interleaved contenders. Per format and round, the injected request is compared with the plain
 * one of the same round: "delay error" = (its response head − the injected delay) − the plain
 * request's head, connect time taken out of both (the service sends the head before it
 * synthesizes, so the two heads differ by the delay alone); "stall error" = its gap between audio
 * events 0 and 1, where the stall is put, − the stall − the plain request's gap there (the service
 * stalls once the event is ready, so the stall adds to the time it takes to make event 1: about
 * 0 ms for pcm and wav, tens of ms for mp3).
 * Targets: |p50| ≤ 3 ms (delay), ≤ 5 ms (stall). Underruns: a stall with the service at
 * `pace: 'realtime'`, where only a stall longer than the service's lead can be heard.
 *
 * Overhead: at concurrency 50 against the local service (pcm, so the service is cheap), the CPU
 * this process spends per measured request. And, in the same run (25 + 25 requests in flight at
 * once, against a replay server in the child that answers at once with one capture of the local
 * service, so the server adds nothing), measureLatency's first-byte times beside a bare
 * `node:http` client's. Target: p50 difference ≤ 0.5 ms.
 */
import { Agent, request as httpRequest } from 'node:http';
import { measureLatency, type LatencyRecord } from '../src/latency/index.js';
import type { AudioFormat } from '../src/codec/types.js';
import { TTS_PATH } from '../src/service/index.js';
import { startServiceProcess, type ServiceProcess } from './lib/serviceProcess.js';
import { round, summarize } from './lib/stats.js';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND = 'npm run bench -- latencyCommand';
const FORMATS: AudioFormat[] = ['pcm', 'wav', 'mp3', 'opus'];
const TEXT = 'Thanks for calling voicewire. Please hold the line.';
const SHORT_TEXT = 'Thanks for calling.';
const DELAY_MS = 300;
const STALL_MS = 300;
/** A stall longer than the realtime service's lead (REALTIME_LEAD_SEC), so a player hears it. */
const AUDIBLE_STALL_MS = 800;
const FAULT = `delay-first-byte=${DELAY_MS}, stall-after=1:${STALL_MS}`;
const DELAY_TARGET_MS = 3;
const STALL_TARGET_MS = 5;
const OVERHEAD_TARGET_MS = 0.5;
const FULL_ROUNDS = 20;
const QUICK_ROUNDS = 2;
const OVERHEAD_CONCURRENCY = 50;
const FULL_OVERHEAD_ROUNDS = 8;
const QUICK_OVERHEAD_ROUNDS = 1;
const FIRST_BYTE_REQUESTS_PER_WORKER = 4;
const SEQUENTIAL_BATCH = 10;

function pairs(records: LatencyRecord[]): Array<[LatencyRecord, LatencyRecord]> {
  const out: Array<[LatencyRecord, LatencyRecord]> = [];
  for (const inj of records.filter((r) => r.contender === 'injected' && r.ok)) {
    const plain = records.find((r) => r.contender === 'plain' && r.round === inj.round && r.ok);
    if (plain) out.push([inj, plain]);
  }
  return out;
}

function gap01(r: LatencyRecord): number {
  const a = r.audioEvents.find((e) => e.index === 0);
  const b = r.audioEvents.find((e) => e.index === 1);
  return a && b ? b.atMs - a.atMs : NaN;
}

async function accuracy(svc: ServiceProcess, format: AudioFormat, rounds: number, quick: boolean): Promise<BenchResult> {
  const run = await measureLatency({
    targets: [
      { label: 'plain', baseUrl: svc.baseUrl, apiKey: svc.token },
      { label: 'injected', baseUrl: svc.baseUrl, apiKey: svc.token, headers: { 'x-voicewire-fault': FAULT } },
    ],
    texts: [TEXT],
    runs: rounds,
    warmup: 1,
    format,
  });
  const ps = pairs(run.records);
  const head = (r: LatencyRecord): number => r.headMs! - (r.connectMs ?? 0);
  const delayErrors = ps.map(([inj, plain]) => head(inj) - DELAY_MS - head(plain));
  const stallErrors = ps.map(([inj, plain]) => gap01(inj) - STALL_MS - gap01(plain));
  const delayErr = summarize(delayErrors);
  const stallErr = summarize(stallErrors);
  const plainGap = summarize(ps.map(([, plain]) => gap01(plain)));
  const absMax = (xs: number[]): number => Math.max(...xs.map(Math.abs));
  return {
    scenario: `latency command / accuracy / ${format} / ${DELAY_MS} ms first-byte delay + ${STALL_MS} ms stall`,
    figures: {
      pairs: ps.length,
      'delay error p50 ms': round(delayErr.p50, 2),
      'delay error max |ms|': round(absMax(delayErrors), 2),
      'stall error p50 ms': round(stallErr.p50, 2),
      'stall error max |ms|': round(absMax(stallErrors), 2),
      'plain gap 0→1 p50 ms': round(plainGap.p50, 2),
      'failed requests': run.records.filter((r) => !r.ok).length,
    },
    target: `|delay error p50| ≤ ${DELAY_TARGET_MS} ms, |stall error p50| ≤ ${STALL_TARGET_MS} ms`,
    ...(quick ? {} : { met: Math.abs(delayErr.p50) <= DELAY_TARGET_MS && Math.abs(stallErr.p50) <= STALL_TARGET_MS }),
    command: COMMAND,
    notes: "service in a child process, pace fast; delay error against the same round's plain request",
  };
}

async function underruns(svc: ServiceProcess, rounds: number, quick: boolean): Promise<BenchResult> {
  const run = await measureLatency({
    targets: [
      { label: 'plain', baseUrl: svc.baseUrl, apiKey: svc.token },
      { label: 'injected', baseUrl: svc.baseUrl, apiKey: svc.token, headers: { 'x-voicewire-fault': `stall-after=6:${AUDIBLE_STALL_MS}` } },
    ],
    texts: [TEXT],
    runs: rounds,
    warmup: 0,
    format: 'opus',
    concurrency: 2,
  });
  const figures: Record<string, number> = {};
  for (const s of run.summaries) {
    for (const p of s.players) {
      figures[`${s.contender} stalled @${p.jitterBufferMs} ms`] = p.stalledRequests;
      figures[`${s.contender} underrun p50 ms @${p.jitterBufferMs} ms`] = round(p.underrunMs.p50 ?? NaN, 1);
    }
  }
  const plain = run.summaries.find((s) => s.contender === 'plain')!;
  const injected = run.summaries.find((s) => s.contender === 'injected')!;
  return {
    scenario: `latency command / simulated player / opus, service at realtime pace, ${AUDIBLE_STALL_MS} ms stall`,
    figures: { requests: run.records.length, ...figures },
    target: 'no underrun without a fault; every injected request underruns at 0 ms buffer',
    ...(quick ? {} : { met: plain.players.every((p) => p.stalledRequests === 0) && injected.players[0]!.stalledRequests === injected.ok }),
    command: COMMAND,
  };
}

/** A bare node:http request: ms from the call to the first body chunk; the body is drained. */
function bareFirstByte(url: URL, token: string, body: string, agent: Agent): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      },
      (res) => {
        let first = NaN;
        res.on('data', () => {
          if (Number.isNaN(first)) first = performance.now() - t0;
        });
        res.on('end', () => resolve(first));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function overhead(svc: ServiceProcess, rounds: number, quick: boolean): Promise<BenchResult[]> {
  const format: AudioFormat = 'pcm';
  const body = JSON.stringify({ text: SHORT_TEXT, format, sample_rate: 16000 });
  // CPU per request at concurrency 50, measureLatency alone.
  const cpuRun = await measureLatency({
    targets: [{ label: 'local', baseUrl: svc.baseUrl, apiKey: svc.token }],
    texts: [SHORT_TEXT],
    runs: rounds * OVERHEAD_CONCURRENCY,
    warmup: 1,
    concurrency: OVERHEAD_CONCURRENCY,
    format,
    sampleRate: 16000,
  });
  const perRequestCpu = cpuRun.cpuMs / Math.max(1, cpuRun.records.length);
  // Same run: half the load through measureLatency, half through bare node:http (keep-alive,
  // as the client's pool), both against the replay server.
  const half = OVERHEAD_CONCURRENCY / 2;
  const total = rounds * FIRST_BYTE_REQUESTS_PER_WORKER * half;
  const agent = new Agent({ keepAlive: true, maxSockets: half });
  const url = new URL(TTS_PATH, svc.replayUrl);
  await Promise.all(Array.from({ length: half }, () => bareFirstByte(url, svc.token, body, agent))); // warm-up, as ours
  const bare: number[] = [];
  let bareNext = 0;
  const bareWorker = async (): Promise<void> => {
    while (bareNext++ < total) bare.push(await bareFirstByte(url, svc.token, body, agent));
  };
  const [ours] = await Promise.all([
    measureLatency({
      targets: [{ label: 'replay', baseUrl: svc.replayUrl, apiKey: svc.token }],
      texts: [SHORT_TEXT],
      runs: total,
      warmup: half,
      concurrency: half,
      format,
      sampleRate: 16000,
    }),
    Promise.all(Array.from({ length: half }, bareWorker)),
  ]);
  // Without contention: one request at a time, ours and bare alternating.
  const seqOurs: number[] = [];
  const seqBare: number[] = [];
  for (let i = 0; i < total / half; i++) {
    const one = await measureLatency({
      targets: [{ label: 'replay', baseUrl: svc.replayUrl, apiKey: svc.token }],
      texts: [SHORT_TEXT],
      runs: SEQUENTIAL_BATCH,
      warmup: 1,
      format,
      sampleRate: 16000,
    });
    seqOurs.push(...one.records.map((r) => r.firstByteMs ?? NaN));
    for (let k = 0; k < SEQUENTIAL_BATCH; k++) seqBare.push(await bareFirstByte(url, svc.token, body, agent));
  }
  agent.destroy();
  const seqO = summarize(seqOurs);
  const seqB = summarize(seqBare);
  const oursFb = summarize(ours.records.map((r) => r.firstByteMs ?? NaN));
  const bareFb = summarize(bare);
  const diff = oursFb.p50 - bareFb.p50;
  return [
    {
      scenario: `latency command / overhead / concurrency ${OVERHEAD_CONCURRENCY}, pcm 16 kHz`,
      figures: {
        requests: cpuRun.records.length,
        'CPU ms/request': round(perRequestCpu, 3),
        'wall s': round(cpuRun.elapsedMs / 1000, 2),
        failed: cpuRun.records.filter((r) => !r.ok).length,
      },
      command: COMMAND,
      notes: 'CPU of the measuring process only (client, engine decoding, records); the service runs in a child process',
    },
    {
      scenario: `latency command / first byte vs bare node:http / ${half} + ${half} in flight`,
      figures: {
        'ours p50 ms': round(oursFb.p50, 2),
        'bare p50 ms': round(bareFb.p50, 2),
        'difference p50 ms': round(diff, 2),
        'ours p99 ms': round(oursFb.p99, 2),
        'bare p99 ms': round(bareFb.p99, 2),
        n: oursFb.n,
      },
      anchor: 'bare node:http client',
      ratio: round(oursFb.p50 / bareFb.p50, 3),
      target: `p50 difference ≤ ${OVERHEAD_TARGET_MS} ms`,
      ...(quick ? {} : { met: diff <= OVERHEAD_TARGET_MS }),
      command: COMMAND,
    },
    {
      scenario: 'latency command / first byte vs bare node:http / one request at a time, alternating',
      figures: {
        'ours p50 ms': round(seqO.p50, 3),
        'bare p50 ms': round(seqB.p50, 3),
        'difference p50 ms': round(seqO.p50 - seqB.p50, 3),
        n: seqO.n,
      },
      anchor: 'bare node:http client',
      ratio: round(seqO.p50 / seqB.p50, 3),
      target: `p50 difference ≤ ${OVERHEAD_TARGET_MS} ms`,
      ...(quick ? {} : { met: seqO.p50 - seqB.p50 <= OVERHEAD_TARGET_MS }),
      command: COMMAND,
      notes: "the client's own path (fetch, body reader, engine) without other requests competing for the thread",
    },
  ];
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const rounds = opts.quick ? QUICK_ROUNDS : FULL_ROUNDS;
  const results: BenchResult[] = [];
  const fast = await startServiceProcess('fast');
  try {
    for (const format of FORMATS) results.push(await accuracy(fast, format, rounds, opts.quick));
    results.push(...(await overhead(fast, opts.quick ? QUICK_OVERHEAD_ROUNDS : FULL_OVERHEAD_ROUNDS, opts.quick)));
  } finally {
    await fast.close();
  }
  const realtime = await startServiceProcess('realtime');
  try {
    results.push(await underruns(realtime, opts.quick ? 1 : 5, opts.quick));
  } finally {
    await realtime.close();
  }
  return results;
}
