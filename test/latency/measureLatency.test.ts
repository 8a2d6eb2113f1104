/**
 * measureLatency against the real local service on loopback: injected delays and stalls land on
 * the request that carried them, failures are counted by kind, captures replay.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createSpeechPipeline } from '../../src/engine/SpeechPipeline.js';
import { measureLatency, planTasks, type LatencyRecord } from '../../src/latency/index.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';

const TEXT = 'The quick brown fox jumps over the lazy dog, then it runs far away.';
const INJECTED_MS = 300;
const FAULT = 'x-voicewire-fault';

let svc: LocalService;
beforeAll(async () => {
  svc = await startLocalService();
});
afterAll(async () => {
  await svc.close();
});

const target = (label: string, extra: Partial<{ apiKey: string; baseUrl: string }> = {}) => ({
  label,
  baseUrl: svc.baseUrl,
  apiKey: svc.token,
  ...extra,
});

function only(records: LatencyRecord[], contender: string, round: number): LatencyRecord {
  const r = records.find((x) => x.contender === contender && x.round === round);
  if (!r) throw new Error(`no record ${contender}/${round}`);
  return r;
}

describe('measureLatency (local service)', () => {
  it('a 300 ms first-byte delay and a 300 ms stall are found on the one request that carried them', async () => {
    const run = await measureLatency({
      targets: [target('plain'), target('faulty')],
      texts: [TEXT],
      runs: 2,
      warmup: 1,
      format: 'opus',
      requestHeaders: (t) =>
        t.contender === 'faulty' && t.round === 1
          ? { [FAULT]: `delay-first-byte=${INJECTED_MS}, stall-after=1:${INJECTED_MS}` }
          : undefined,
    });
    expect(run.records).toHaveLength(4);
    expect(run.records.every((r) => r.ok)).toBe(true);
    const hit = only(run.records, 'faulty', 1);
    const others = run.records.filter((r) => r !== hit);
    const medianOtherHead = others.map((r) => r.headMs!).sort((a, b) => a - b)[1]!;
    expect(hit.headMs! - INJECTED_MS).toBeGreaterThan(-5);
    expect(hit.headMs!).toBeGreaterThan(medianOtherHead + INJECTED_MS / 2);
    // The stall is put between audio events 0 and 1, which otherwise leave the service together.
    // (Loosely: the service shares this process, so its work can delay the event before the gap.)
    const gap01 = (r: LatencyRecord): number => r.audioEvents[1]!.atMs - r.audioEvents[0]!.atMs;
    expect(hit.audioEvents[1]!.index).toBe(1);
    expect(gap01(hit)).toBeGreaterThan(INJECTED_MS * 0.8);
    expect(hit.maxAudioGapMs!).toBe(gap01(hit));
    for (const r of others) expect(gap01(r)).toBeLessThan(INJECTED_MS / 2);
    // Every figure is ordered on the request's clock.
    for (const r of run.records) {
      expect(r.headMs!).toBeLessThanOrEqual(r.firstByteMs!);
      expect(r.firstByteMs!).toBeLessThanOrEqual(r.firstAudioByteMs!);
      expect(r.firstAudioByteMs!).toBeLessThanOrEqual(r.firstFrameMs!);
      expect(r.firstFrameMs!).toBeLessThanOrEqual(r.lastByteMs! + 1);
      expect(r.audioDurationSec!).toBeGreaterThan(1);
      expect(r.words.map((w) => w.text)).toContain('fox');
      expect(r.players.map((p) => p.jitterBufferMs)).toEqual([0, 100, 200]);
    }
    const faulty = run.summaries.find((s) => s.contender === 'faulty')!;
    expect(faulty.figures.headMs.n).toBe(2);
    expect(faulty.figures.headMs.max).toBe(hit.headMs);
  });

  it('a stall longer than the audio in hand underruns the simulated player on that request only, and makes later words late', async () => {
    const run = await measureLatency({
      targets: [target('plain'), target('faulty')],
      texts: [TEXT],
      runs: 2,
      warmup: 0,
      format: 'wav',
      jitterBuffersMs: [0, 5000],
      requestHeaders: (t) => (t.contender === 'faulty' && t.round === 0 ? { [FAULT]: 'stall-after=1:1500' } : undefined),
    });
    const hit = only(run.records, 'faulty', 0);
    const [noBuffer, hugeBuffer] = hit.players;
    expect(noBuffer!.underrunCount).toBe(1);
    expect(noBuffer!.underrunMs).toBeGreaterThan(1500 - hit.arrivals[0]!.endSec * 1000 - 50);
    expect(noBuffer!.maxWordLateMs).toBeCloseTo(noBuffer!.underrunMs, 6);
    expect(hugeBuffer!.underrunCount).toBe(0);
    for (const r of run.records.filter((x) => x !== hit)) expect(r.players[0]!.underrunCount).toBe(0);
    const summary = run.summaries.find((s) => s.contender === 'faulty')!;
    expect(summary.players[0]!.stalledRequests).toBe(1);
  });

  it('a new connection has a connect time; a reused one has none', async () => {
    // A new origin (localhost, not 127.0.0.1): the client's pool has no connection to it yet.
    const run = await measureLatency({
      targets: [{ label: 'fresh', baseUrl: svc.baseUrl.replace('127.0.0.1', 'localhost'), apiKey: svc.token }],
      texts: ['Hi.'],
      runs: 8,
      warmup: 0,
      format: 'pcm',
      sampleRate: 16000,
    });
    const [first] = run.records;
    expect(first!.connectMs!).toBeGreaterThan(0);
    expect(first!.tls).toBe(false);
    // Sequential requests: at most a second connection while the first one finishes its body.
    const connected = run.records.filter((r) => r.connectMs !== null).length;
    expect(connected).toBeLessThanOrEqual(2);
    expect(run.records.slice(-4).every((r) => r.connectMs === null)).toBe(true);
    expect(run.summaries[0]!.figures.connectMs.n).toBe(connected);
  });

  it('failures are counted by kind beside the figures: refused key (403), unreachable service, a body cut mid-stream', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = await measureLatency({
      targets: [target('wrong-key', { apiKey: 'nope' }), target('gone', { baseUrl: `http://127.0.0.1:${deadPort}` }), target('cut')],
      texts: [TEXT],
      runs: 2,
      warmup: 0,
      timeoutMs: 5000,
      requestHeaders: (t) => (t.contender === 'cut' ? { [FAULT]: 'cut-after=3' } : undefined),
    });
    const byName = Object.fromEntries(run.summaries.map((s) => [s.contender, s]));
    expect(byName['wrong-key']!.failures).toEqual({ 'http-4xx': 2 });
    expect(run.records.find((r) => r.contender === 'wrong-key')!.status).toBe(403);
    expect(byName['gone']!.failures).toEqual({ connection: 2 });
    expect(byName['cut']!.failures).toEqual({ 'stream-interrupted': 2 });
    const cut = run.records.find((r) => r.contender === 'cut')!;
    expect(cut.failure).toMatchObject({ kind: 'stream-interrupted', code: 'STREAM_INTERRUPTED', midStream: true });
    // What a cut stream reached before the cut still counts.
    expect(byName['cut']!.figures.firstAudioByteMs.n).toBe(2);
    expect(byName['wrong-key']!.figures.firstByteMs.n).toBe(0);
    expect(byName['wrong-key']!.requests).toBe(2);
  });

  it('stops on abort with what was measured so far', async () => {
    const controller = new AbortController();
    const run = await measureLatency({
      targets: [target('a')],
      texts: [TEXT],
      runs: 50,
      warmup: 0,
      signal: controller.signal,
      onProgress: ({ done }) => {
        if (done === 2) controller.abort();
      },
    });
    expect(run.interrupted).toBe(true);
    expect(run.records.length).toBe(2);
    expect(run.records.every((r) => r.ok)).toBe(true);
  });

  it('hands each measured body to onBody; it decodes to the same audio', async () => {
    const bodies: Array<{ rec: LatencyRecord; body: Uint8Array }> = [];
    const run = await measureLatency({
      targets: [target('a')],
      texts: [TEXT],
      runs: 1,
      warmup: 1,
      format: 'mp3',
      onBody: (rec, body) => {
        bodies.push({ rec, body });
        return `/captures/${rec.seq}.sse`;
      },
    });
    expect(bodies).toHaveLength(1);
    expect(run.records[0]!.capturePath).toBe('/captures/1.sse');
    const p = createSpeechPipeline({ format: 'mp3' });
    let samples = 0;
    let rate = 0;
    p.on('data', (f) => {
      samples += f.sampleCount;
      rate = f.sampleRate;
    });
    const done = new Promise((resolve, reject) => {
      p.on('end', resolve);
      p.on('error', reject);
    });
    p.end(Buffer.from(bodies[0]!.body));
    await done;
    expect(samples / rate).toBeCloseTo(run.records[0]!.audioDurationSec!, 3);
  });
});

describe('planTasks', () => {
  it('interleaves contenders round by round, rotating who goes first, warm-up rounds first', () => {
    const tasks = planTasks(['a', 'b', 'c'], 1, 2, 1);
    expect(tasks.map((t) => `${t.warmup ? 'w' : ''}${t.round}${t.contender}`)).toEqual([
      'w0a',
      'w0b',
      'w0c',
      '0b',
      '0c',
      '0a',
      '1c',
      '1a',
      '1b',
    ]);
  });
});
