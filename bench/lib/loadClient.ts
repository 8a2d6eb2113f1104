/**
 * The load bench's client, in its own process (forked by serviceLoad.bench.ts, so its CPU is not
 * the service's event loop): sends N speech requests at once over real HTTP and reports, per
 * request, the time to the first audio byte and whether the stream was complete and valid.
 *
 * Protocol: the parent sends one {@link LoadJob} over IPC; the client answers one
 * {@link LoadReport} and exits.
 *
 * - First audio: the arrival of the body chunk holding the first base64 character of the first
 *   event whose `audio_base64` is not empty (the clock starts as the request is sent).
 * - Valid: status 200, the last event's `chunk_seq` is the `x-voicewire-chunks` header minus one,
 *   every chunk has its final snapshot, and voicewire's own pipeline decodes the body to the
 *   sample count those snapshots add up to (± 1 ms per chunk: `audio_duration` is rounded to the
 *   ms). `clientCpuMs` is the client's CPU during the load (the Opus decode after it excluded).
 */
import { request as httpRequest, Agent } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { createSpeechPipeline } from '../../src/engine/SpeechPipeline.js';
import type { AudioFormat } from '../../src/codec/types.js';

export interface LoadJob {
  url: string;
  token: string;
  n: number;
  body: { text: string; format: AudioFormat; latency: string; sample_rate?: number };
  sampleRate: number;
  /** Every request is abandoned (and counted invalid) after this long. */
  timeoutMs: number;
}

export interface LoadOutcome {
  firstAudioMs: number;
  /** When the first audio byte arrived, in ms since the Unix epoch (comparable across processes). */
  firstAudioAt: number;
  totalMs: number;
  valid: boolean;
  why?: string;
}

export interface LoadReport {
  outcomes: LoadOutcome[];
  wallMs: number;
  clientCpuMs: number;
}

const AUDIO_KEY = '"audio_base64":"';
/** `audio_duration` is rounded to the millisecond, once per chunk. */
const DURATION_SLACK_SEC_PER_CHUNK = 0.001;

/** What one response left for the check: its bytes (when decoded later) and its own counts. */
interface Received {
  outcome: LoadOutcome;
  /** The body, kept for a decode after the load (opus), else null (decoded as it arrived). */
  body: Buffer[] | null;
  chunks: number;
  lastSeq: number;
  expectSec: number;
  liveSamples: number;
}

/** Decodes a body with voicewire's pipeline; resolves to the sample count. */
function decodeSamples(format: AudioFormat, sampleRate: number, body: Iterable<Buffer>): Promise<number> {
  const pipeline = createSpeechPipeline({ format, sampleRate });
  let samples = 0;
  return new Promise((resolve, reject) => {
    pipeline.on('data', (f: { sampleCount: number }) => {
      samples += f.sampleCount;
    });
    pipeline.on('error', reject);
    pipeline.on('end', () => resolve(samples));
    for (const b of body) pipeline.write(b);
    pipeline.end();
  });
}

function one(job: LoadJob, agent: Agent, decodeLive: boolean): Promise<Received> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const got: Received = {
      outcome: { firstAudioMs: NaN, firstAudioAt: NaN, totalMs: NaN, valid: false },
      body: decodeLive ? null : [],
      chunks: -1,
      lastSeq: -1,
      expectSec: 0,
      liveSamples: 0,
    };
    let settled = false;
    const finish = (why?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      got.outcome.totalMs = performance.now() - t0;
      if (why) {
        got.outcome.why = why;
        got.body = null;
      }
      resolve(got);
    };
    const timer = setTimeout(() => {
      req.destroy();
      finish('timed out');
    }, job.timeoutMs);
    const req = httpRequest(
      job.url,
      {
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          finish(`status ${res.statusCode}`);
          return;
        }
        got.chunks = Number(res.headers['x-voicewire-chunks']);
        const live = decodeLive ? createSpeechPipeline({ format: job.body.format, sampleRate: job.sampleRate }) : null;
        let decoded: Promise<void> = Promise.resolve();
        if (live) {
          live.on('data', (f: { sampleCount: number }) => {
            got.liveSamples += f.sampleCount;
          });
          decoded = new Promise((ok, fail) => {
            live.on('end', ok);
            live.on('error', fail);
          });
          live.on('drain', () => res.resume());
        }
        // The last event's chunk_seq and each chunk's final duration, read from the text as it passes
        // (only the unparsed tail is kept).
        const utf8 = new StringDecoder('utf8');
        const finalDuration = new Map<number, number>();
        let tail = '';
        let scan = '';
        res.on('data', (bytes: Buffer) => {
          const text = utf8.write(bytes);
          if (Number.isNaN(got.outcome.firstAudioMs)) {
            scan += text;
            const at = scan.indexOf(AUDIO_KEY);
            if (at >= 0 && scan.length > at + AUDIO_KEY.length) {
              if (scan[at + AUDIO_KEY.length] !== '"') {
                const now = performance.now();
                got.outcome.firstAudioMs = now - t0;
                got.outcome.firstAudioAt = performance.timeOrigin + now;
                scan = '';
              } else scan = scan.slice(at + AUDIO_KEY.length);
            }
          }
          tail += text;
          let end: number;
          while ((end = tail.indexOf('\n\n')) >= 0) {
            const ev = JSON.parse(tail.slice(6, end)) as { alignment: { audio_duration: number } | null; chunk_seq: number };
            if (ev.alignment) finalDuration.set(ev.chunk_seq, ev.alignment.audio_duration);
            got.lastSeq = ev.chunk_seq;
            tail = tail.slice(end + 2);
          }
          got.body?.push(bytes);
          if (live && !live.write(bytes)) res.pause();
        });
        res.on('error', (err) => finish(err.message));
        res.on('end', () => {
          for (const d of finalDuration.values()) got.expectSec += d;
          if (finalDuration.size !== got.chunks) {
            finish(`final snapshots for ${finalDuration.size} of ${got.chunks} chunks`);
            return;
          }
          live?.end();
          decoded.then(
            () => finish(),
            (err: Error) => finish(`decode: ${err.message}`),
          );
        });
      },
    );
    req.on('error', (err) => finish(err.message));
    req.end(JSON.stringify(job.body));
  });
}

/** Complete and valid: every chunk's last event came, and the audio decodes to the alignment's length. */
async function check(job: LoadJob, got: Received): Promise<LoadOutcome> {
  const o = got.outcome;
  if (o.why) return o;
  if (got.lastSeq !== got.chunks - 1) return { ...o, why: `last chunk_seq ${got.lastSeq} of ${got.chunks}` };
  let samples = got.liveSamples;
  if (got.body) {
    try {
      samples = await decodeSamples(job.body.format, job.sampleRate, got.body);
    } catch (err) {
      return { ...o, why: `decode: ${(err as Error).message}` };
    }
    got.body = null;
  }
  const gotSec = samples / job.sampleRate;
  if (Math.abs(gotSec - got.expectSec) > got.chunks * DURATION_SLACK_SEC_PER_CHUNK) {
    return { ...o, why: `decoded ${gotSec} s, the alignment says ${got.expectSec} s` };
  }
  return { ...o, valid: true };
}

async function main(job: LoadJob): Promise<LoadReport> {
  // Every request on its own connection, all at once (a browser-like pool would queue them).
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  // PCM decodes as it arrives (cheap, and 200 bodies would not fit in memory); Opus bodies
  // (~0.3 MB each) are decoded after the load, so libopus in this process does not take CPU
  // from the service while it is measured.
  const decodeLive = job.body.format === 'pcm';
  const received = await Promise.all(Array.from({ length: job.n }, () => one(job, agent, decodeLive)));
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  agent.destroy();
  const outcomes: LoadOutcome[] = [];
  for (const got of received) outcomes.push(await check(job, got));
  return { outcomes, wallMs, clientCpuMs: (cpu.user + cpu.system) / 1000 };
}

process.once('message', (job: LoadJob) => {
  main(job).then(
    (report) => process.send!(report, () => process.exit(0)),
    (err: unknown) => {
      process.stderr.write(`load client: ${String((err as Error).stack ?? err)}\n`);
      process.exit(1);
    },
  );
});
