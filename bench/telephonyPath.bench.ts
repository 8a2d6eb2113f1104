/**
 * The telephony path: 48 kHz Ogg Opus → 8 kHz μ-law in 20 ms frames (160 bytes), on one core.
 *
 *   the command in COMMAND below (run from the repository root)
 *
 * - native 8 kHz: libopus decodes straight to 8 kHz (what the engine does when `output.sampleRate`
 *   is 8/12/16/24/48 kHz), then the conversion stage only encodes μ-law and frames;
 * - 48 kHz + speex: decode at 48 kHz, resample 48 → 8 kHz (quality 5) in the conversion stage;
 * - full pipeline: SSE body → events → ring → decoder → framer → conversion stage, as served.
 * The input is the chained fixture repeated (one Ogg stream per text chunk, as a server may send).
 */
import { OggOpusDecoder } from '../src/codec/OpusDecoder.js';
import { Framer } from '../src/codec/Framer.js';
import type { PcmFrame } from '../src/codec/types.js';
import { ConversionStage } from '../src/dsp/ConversionStage.js';
import { loadResampler } from '../src/dsp/Resampler.js';
import { fixtureBytes, opusPackets, repeat, runPipelineOnce, sseBody } from './decode.bench.js';
import { interleave } from './lib/measure.js';
import type { BenchOptions, BenchResult } from './types.js';

const COMMAND =
  "node --expose-gc --import tsx -e \"import('./bench/telephonyPath.bench.ts').then(m=>m.run({quick:false}))" +
  '.then(r=>console.table(r.map(x=>({s:x.scenario,...x.figures,met:x.met}))))"';
const TELEPHONY_RATE = 8000;
const FRAME_MS = 20;
const PACKET_SEC = 0.02;
const TARGET_X_REALTIME = 200;

function corePath(ogg: Uint8Array, decodeRate: number): number {
  const dec = new OggOpusDecoder({ sampleRate: decodeRate });
  const stage = new ConversionStage({ sampleRate: TELEPHONY_RATE, encoding: 'mulaw', channels: 1, frameMs: FRAME_MS });
  let framer: Framer | null = null;
  const frames: PcmFrame[] = [];
  let bytes = 0;
  const { pcm } = dec.decode(ogg);
  for (const block of pcm) {
    framer ??= new Framer({ ...dec.format!, frameMs: FRAME_MS });
    framer.push(block, frames);
  }
  framer?.flush(frames);
  for (const f of frames) for (const out of stage.push(f)) bytes += out.samples.length;
  for (const out of stage.flush()) bytes += out.samples.length;
  stage.free();
  dec.free();
  return bytes;
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  await loadResampler();
  const one = fixtureBytes('opus/chained.opus');
  const times = opts.quick ? 2 : 8;
  const ogg = repeat(one, times);
  const audioSec = opusPackets(ogg).length * PACKET_SEC;
  const body = sseBody(ogg);
  const scenarios: Array<[string, string, () => unknown]> = [
    ['native8k', 'core: opus decoded natively at 8 kHz → μ-law 20 ms frames', () => corePath(ogg, TELEPHONY_RATE)],
    ['resample48k', 'core: opus at 48 kHz → speex 48→8 kHz → μ-law 20 ms frames', () => corePath(ogg, 48000)],
    [
      'pipeline',
      'full pipeline: SSE → opus (native 8 kHz) → μ-law 20 ms frames',
      () => runPipelineOnce('opus', body, { sampleRate: TELEPHONY_RATE, encoding: 'mulaw', channels: 1 }),
    ],
  ];
  // Side by side in alternating rounds on the thread's CPU clock (bench/lib/measure.ts); the
  // ratios are to the native 8 kHz path.
  const t = await interleave(
    scenarios.map(([name, , run]) => ({ name, run })),
    { rounds: opts.quick ? 2 : 6, minSampleMs: opts.quick ? 30 : 250 },
  );
  const results: BenchResult[] = [];
  for (const [name, scenario] of scenarios) {
    const ms = t.ms[name]!;
    const x = (audioSec * 1000) / ms;
    results.push({
      scenario: `${scenario} / ${audioSec.toFixed(1)} s of speech`,
      figures: { '× real time': Math.round(x), 'CPU ms/audio s': +(ms / audioSec).toFixed(3) },
      ...(name === 'native8k' ? {} : { anchor: 'native 8 kHz decode path', ratio: +t.ratio[name]!.toFixed(2) }),
      target: '≥ 200× real time on one core',
      ...(opts.quick ? {} : { met: x >= TARGET_X_REALTIME }),
      command: COMMAND,
    });
  }
  return results;
}
