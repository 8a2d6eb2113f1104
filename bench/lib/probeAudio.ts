/**
 * The audio the detector probes share (bench/detectorCostProbe.ts, sileroWindowProbe.ts,
 * turnEdgesProbe.ts): the telephony bench's own caller track (the frames its phones send) and its
 * Twilio bot line, each as one 8 kHz μ-law array of a given length.
 */
import { stepSpec } from '../telephony.bench.js';

/** 20 ms media frames at 8 kHz. */
const FRAME = 160;

let spec: ReturnType<typeof stepSpec> | undefined;
function benchSpec(): ReturnType<typeof stepSpec> {
  spec ??= stepSpec({ quick: false });
  return spec;
}

/** The telephony bench's caller frames end to end, cut to at most `samples`. */
export function benchCallerTrack(samples: number): Uint8Array {
  const frames = benchSpec().caller.frames.map((f) => Buffer.from(f, 'base64'));
  const out = new Uint8Array(Math.min(frames.length * FRAME, samples));
  for (let k = 0; k * FRAME < out.length; k++) {
    out.set(frames[k]!.subarray(0, Math.min(FRAME, out.length - k * FRAME)), k * FRAME);
  }
  return out;
}

/** The bench's Twilio bot speech (μ-law), repeated to `samples`. */
export function benchBotLine(samples: number): Uint8Array {
  const speech = benchSpec().speech('twilio');
  if (!(speech instanceof Uint8Array)) throw new Error("the telephony bench's Twilio speech is not μ-law");
  const out = new Uint8Array(samples);
  for (let i = 0; i < samples; i += speech.length) out.set(speech.subarray(0, Math.min(speech.length, samples - i)), i);
  return out;
}
