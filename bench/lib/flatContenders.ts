/**
 * The contenders of the flat-loop probes (bench/lib/flatStreams.ts, bench/lib/churnStreams.ts): one
 * telephony stream each (real Ogg Opus capture → 8 kHz μ-law, 20 ms frames), fed one SSE event's
 * reads at a time and asked for one frame per tick. Not a bench module.
 */
import { readFileSync } from 'node:fs';
import { createOpusPacketDecoder } from '../../src/codec/opus/backend.js';
import { loadResampler } from '../../src/dsp/Resampler.js';
import * as SpeechPipelineModule from '../../src/engine/SpeechPipeline.js';
import { LONG_TEXT, parseCapture, recordCaptures, type RealCapture } from './realCapture.js';
import { sliceReads, tcpReads } from './readSizes.js';

/** One stream as the probes drive it. */
export interface FlatStream {
  /** Writes event `ev`'s reads. */
  feed(ev: number): void;
  /** Takes one 20 ms frame; false when none is ready. */
  take(): boolean;
  close(): void;
}

/** What the probes hand every contender: the capture's reads per event and its Opus packets per event. */
export interface FlatInputs {
  reads: readonly (readonly Uint8Array[])[];
  packets: readonly (readonly Uint8Array[])[];
}

/** Milliseconds per second. */
const MS_PER_S = 1000;

/** What the probes run: the capture, its inputs, and the engine of this tree and of `OLD_TREE` (this tree's when unset). */
export interface FlatSetup extends FlatInputs {
  cap: RealCapture;
  /** Each event's due time, ms from the stream's start. */
  due: number[];
  NEW: typeof SpeechPipelineModule;
  OLD: typeof SpeechPipelineModule;
}

/**
 * Loads the probes' capture (`CAPTURE`, a recorded body, or a long Opus text recorded from the local
 * service now), cut into TCP-sized reads, and the engines with their resamplers loaded.
 */
export async function loadFlatSetup(capturePath: string | undefined, oldTree: string | undefined): Promise<FlatSetup> {
  const cap = capturePath
    ? await parseCapture({ format: 'opus', text: '' }, readFileSync(capturePath))
    : (await recordCaptures([{ format: 'opus', text: LONG_TEXT }]))[0]!;
  await loadResampler();
  const OLD = (oldTree ? await import(`${oldTree}/src/engine/SpeechPipeline.ts`) : SpeechPipelineModule) as typeof SpeechPipelineModule;
  if (oldTree) await ((await import(`${oldTree}/src/dsp/Resampler.ts`)) as { loadResampler(): Promise<void> }).loadResampler();
  return {
    cap,
    reads: cap.events.map((e) => sliceReads(e, tcpReads())),
    packets: cap.packets!,
    due: cap.dueSec.map((d) => d * MS_PER_S),
    NEW: SpeechPipelineModule,
    OLD,
  };
}

/** The phone line's format. */
const MULAW_8K = { sampleRate: 8000, encoding: 'mulaw', channels: 1 } as const;
/** Samples in one 20 ms frame at 8 kHz. */
const FRAME_SAMPLES = 160;
/** The floor decodes at the line's rate. */
const FLOOR_RATE = 8000;

/** The engine (`mod`'s SpeechPipeline, this tree's or another checkout's), frames by `readFrame()` (`pull`) or `read()`. */
export function engineStream(mod: typeof SpeechPipelineModule, inputs: FlatInputs, pull: boolean, pullAheadMs?: number): FlatStream {
  const p = mod.createSpeechPipeline({ format: 'opus', output: MULAW_8K, ...(pullAheadMs === undefined ? {} : { pullAheadMs }) });
  p.on('word', () => undefined);
  p.on('error', (e) => {
    throw e;
  });
  return {
    feed: (ev) => {
      for (const r of inputs.reads[ev]!) p.write(r);
    },
    take: () => (pull ? p.readFrame() : p.read()) !== null,
    close: () => p.destroy(),
  };
}

/** The floor: raw libopus at 8 kHz on the same packets, and a queue the frames are taken from. */
export function floorStream(inputs: FlatInputs): FlatStream {
  const dec = createOpusPacketDecoder(FLOOR_RATE, 1, 'native');
  const q: Int16Array[] = [];
  let head = 0;
  let off = 0;
  return {
    feed: (ev) => {
      for (const pk of inputs.packets[ev]!) q.push(dec.decode(pk));
    },
    take: () => {
      let need = FRAME_SAMPLES;
      let avail = -off;
      for (let k = head; k < q.length && avail < need; k++) avail += q[k]!.length;
      if (avail < need) return false;
      while (need > 0) {
        const n = Math.min(need, q[head]!.length - off);
        need -= n;
        off += n;
        if (off === q[head]!.length) {
          q[head++] = undefined as never;
          off = 0;
        }
      }
      return true;
    },
    close: () => dec.free(),
  };
}
