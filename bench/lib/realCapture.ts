/**
 * Real captures: SSE bodies recorded from the local service at bench start-up, so the inputs are
 * always the current service's real stream — espeak-ng speech, the service's own Ogg paging and
 * MP3 framing, and cumulative alignment snapshots that change as words are reached (about a fifth
 * of the events of a long text), not the looped fixtures of `formatInputs.ts`.
 *
 * The service streams with `pace: 'fast'` (no real-time waits), so a 40 s text records in a few
 * seconds; the real-time schedule each event would have had is kept beside it (`dueSec`: the
 * end of its audio minus the service's real-time lead), for benches that replay it paced.
 */
import { MPEGDecoder } from 'mpg123-decoder';
import { OggPageReader } from '../../src/codec/ogg/OggPageReader.js';
import { isOpusHead, isOpusTags } from '../../src/codec/opus/OpusHead.js';
import { startLocalService } from '../../src/service/index.js';
import { REALTIME_LEAD_SEC } from '../../src/service/stream/SseResponder.js';
import type { FormatInput, FormatName } from './formatInputs.js';

/**
 * 738 characters of plain prose (near the 763 of the independent measurement): about
 * 40 s of speech at the service's default voice.
 */
export const LONG_TEXT =
  'Thank you for calling the voicewire support line. Your call matters to us, and it will be ' +
  'answered by the next available agent. While you wait, here is some information that may help. ' +
  'Most questions about billing can be answered on the account page, where you can also download ' +
  'past invoices and change your payment method. If your service stopped working, please check ' +
  'that your device is connected to the network and restart it once before we continue. Many ' +
  'problems are fixed by a restart. For questions about a recent order, have your order number ' +
  'ready: it starts with two letters followed by eight digits. You can also reach us by email at ' +
  'any time of day, and we usually answer within one business day. Thank you for your patience.';

/** A short text for the PCM formats (their bodies are ~8× larger per second than opus). */
export const SHORT_TEXT = 'Thanks for calling voicewire. Please hold while we connect you to the next available agent.';

export interface CapturedEvent {
  /** The event's bytes as they sit in the body (`data: {…}\n\n`). */
  bytes: Buffer;
  /** Its decoded audio bytes. */
  audio: Uint8Array;
  /** Whether its `alignment` differs from the previous event's (a new snapshot to parse). */
  alignmentChanged: boolean;
}

export interface RealCapture extends FormatInput {
  text: string;
  /** Per event, when a real-time service makes it readable: seconds after the stream starts. */
  dueSec: number[];
  /** Events whose alignment snapshot changed from the one before. */
  changedSnapshots: number;
}

interface WireEvent {
  audio_base64: string;
  alignment: unknown;
}

/** Splits an SSE body as the service writes it (`data: <json>\n\n` per event). */
function splitEvents(body: Buffer): CapturedEvent[] {
  const out: CapturedEvent[] = [];
  let prevAlignment = 'null';
  let at = 0;
  while (at < body.length) {
    const end = body.indexOf('\n\n', at);
    const stop = end < 0 ? body.length : end + 2;
    const text = body.toString('utf8', at, stop).trim();
    if (text.startsWith('data: ')) {
      const json = JSON.parse(text.slice('data: '.length)) as WireEvent;
      const alignment = JSON.stringify(json.alignment);
      out.push({
        bytes: body.subarray(at, stop),
        audio: Buffer.from(json.audio_base64, 'base64'),
        alignmentChanged: alignment !== prevAlignment,
      });
      prevAlignment = alignment;
    }
    at = stop;
  }
  return out;
}

/** Ogg Opus: the packets each event completes, and the audio end time (granule) of each event. */
function opusPackets(events: CapturedEvent[]): { packets: Uint8Array[][]; endSec: number[]; channels: number } {
  const packets: Uint8Array[][] = [];
  const endSec: number[] = [];
  let current: Uint8Array[] = [];
  let granule = 0;
  let preSkip = 0;
  let channels = 1;
  const reader = new OggPageReader({
    onPacket: (p) => {
      if (isOpusHead(p.data)) {
        channels = p.data[9]!;
        preSkip = p.data[10]! | (p.data[11]! << 8);
      } else if (!isOpusTags(p.data)) current.push(p.data.slice());
    },
    onPage: (pg) => {
      if (pg.granule > 0) granule = pg.granule;
    },
  });
  for (const e of events) {
    reader.push(e.audio);
    packets.push(current);
    current = [];
    endSec.push(Math.max(0, granule - preSkip) / OPUS_RATE);
  }
  return { packets, endSec, channels };
}

async function mp3Seconds(events: CapturedEvent[]): Promise<{ endSec: number[]; rate: number }> {
  const dec = new MPEGDecoder();
  await dec.ready;
  let samples = 0;
  let rate = 0;
  const endSec: number[] = [];
  for (const e of events) {
    const r = dec.decode(e.audio);
    samples += r.samplesDecoded;
    if (r.sampleRate) rate = r.sampleRate;
    endSec.push(rate ? samples / rate : 0);
  }
  dec.free();
  return { endSec, rate };
}

export interface CaptureSpec {
  format: FormatName;
  text: string;
  /** pcm/wav: the request's sample_rate. @defaultValue 48000 */
  sampleRate?: number;
}

const PCM_RATE = 48_000;
const OPUS_RATE = 48_000;
const WAV_HEADER_BYTES = 44;

/**
 * Records one capture per spec from an in-process local service (`latency: 'normal'`, the
 * default voice), then closes the service.
 */
export async function recordCaptures(specs: CaptureSpec[]): Promise<RealCapture[]> {
  const svc = await startLocalService({ pace: 'fast' });
  try {
    const out: RealCapture[] = [];
    for (const spec of specs) {
      const rate = spec.sampleRate ?? PCM_RATE;
      const res = await fetch(`${svc.baseUrl}/v1/tts/stream/with-timestamp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          text: spec.text,
          format: spec.format,
          latency: 'normal',
          ...(spec.format === 'pcm' || spec.format === 'wav' ? { sample_rate: rate } : {}),
        }),
      });
      if (res.status !== 200) throw new Error(`capture ${spec.format}: HTTP ${res.status}: ${await res.text()}`);
      out.push(await parseCapture(spec, Buffer.from(await res.arrayBuffer())));
    }
    return out;
  } finally {
    await svc.close();
  }
}

/** A recorded body as a {@link RealCapture} (also for a body saved to a file and read back in a child process). */
export async function parseCapture(spec: CaptureSpec, body: Buffer): Promise<RealCapture> {
  const rate = spec.sampleRate ?? PCM_RATE;
  const events = splitEvents(body);
  const payloads = events.map((e) => e.audio);
  let endSec: number[];
  let sampleRate = rate;
  let channels = 1;
  let packets: Uint8Array[][] | undefined;
  if (spec.format === 'opus') {
    ({ endSec, channels, packets } = opusPackets(events));
    sampleRate = OPUS_RATE;
  } else if (spec.format === 'mp3') {
    const m = await mp3Seconds(events);
    ({ endSec } = m);
    sampleRate = m.rate;
  } else {
    let bytes = spec.format === 'wav' ? -WAV_HEADER_BYTES : 0;
    endSec = payloads.map((p) => (bytes += p.length) / (rate * 2));
  }
  return {
    format: spec.format,
    text: spec.text,
    sampleRate,
    channels,
    audioSec: endSec.at(-1) ?? 0,
    events: events.map((e) => e.bytes),
    payloads,
    ...(packets ? { packets } : {}),
    body,
    dueSec: endSec.map((s) => Math.max(0, s - REALTIME_LEAD_SEC)),
    changedSnapshots: events.filter((e) => e.alignmentChanged).length,
  };
}

/** "763 chars, 41.2 s, 425 events (88 new snapshots)": what a real row was measured on. */
export function describeCapture(c: RealCapture): string {
  return `${c.text.length} chars, ${c.audioSec.toFixed(1)} s, ${c.events.length} events (${c.changedSnapshots} new snapshots)`;
}
