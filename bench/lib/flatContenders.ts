/**
 * The contenders of the flat-loop probes (bench/lib/flatStreams.ts, bench/lib/churnStreams.ts): one
 * telephony stream each (real Ogg Opus capture → 8 kHz μ-law, 20 ms frames), fed one SSE event's
 * reads at a time and asked for one frame per tick. Not a bench module.
 */
import { createOpusPacketDecoder } from '../../src/codec/opus/backend.js';
import type * as SpeechPipelineModule from '../../src/engine/SpeechPipeline.js';

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
