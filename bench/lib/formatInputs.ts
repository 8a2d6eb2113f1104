/**
 * The same real speech in every format, as SSE events, with what a raw codec needs to decode the
 * same audio directly (scenarios 2 and 3): the bare payload of each event, and for Ogg Opus the
 * packets each page completes.
 */
import { fixtureBytes, OggPager, OPUS_RATE, readOpus, readWav16, sseEvent, wavHeader } from './audio.js';

export type FormatName = 'pcm' | 'wav' | 'mp3' | 'opus';

export interface FormatInput {
  format: FormatName;
  /** The request's sample_rate (pcm). */
  sampleRate: number;
  channels: number;
  audioSec: number;
  /** One SSE event per entry, as the engine receives them. */
  events: Buffer[];
  /** The audio bytes each event carries (what a raw decoder would be handed). */
  payloads: Uint8Array[];
  /** Ogg Opus only: the packets each event's page completes (headers excluded). */
  packets?: Uint8Array[][];
  /** The whole SSE body. */
  body: Buffer;
  /** Ogg Opus only: packets per page. */
  packetsPerPage?: number;
}

const MP3_FILE = 'mp3/no-tag.mp3';
const MP3_LOOP_SEC = 2.84725;
const MP3_RATE = 22050;
const OPUS_FILE = 'opus/20ms-pages.opus';
const PCM_FILE = 'opus/default-pages.ref.wav';

function finish(
  format: FormatName,
  sampleRate: number,
  channels: number,
  audioSec: number,
  payloads: Uint8Array[],
  packets?: Uint8Array[][],
): FormatInput {
  const events = payloads.map((p) => Buffer.from(sseEvent(p)));
  return { format, sampleRate, channels, audioSec, events, payloads, ...(packets ? { packets } : {}), body: Buffer.concat(events) };
}

/** `seconds` of Ogg Opus (48 kHz mono), `packetsPerPage` 20 ms packets per page, one page per event. */
export function opusInput(seconds: number, packetsPerPage: number): FormatInput {
  const src = readOpus(fixtureBytes(OPUS_FILE));
  const pager = new OggPager(0x0b5e);
  const payloads: Uint8Array[] = [pager.page([src.head], 0, 0x02), pager.page([src.tags], 0)];
  const packets: Uint8Array[][] = [[], []];
  const total = Math.round(seconds * OPUS_RATE);
  let granule = 0;
  for (let i = 0; granule < total;) {
    const page: Uint8Array[] = [];
    while (page.length < packetsPerPage && granule < total) {
      const k = i++ % src.packets.length;
      page.push(src.packets[k]!);
      granule += src.durations[k]!;
    }
    payloads.push(pager.page(page, granule, granule >= total ? 0x04 : 0));
    packets.push(page);
  }
  return { ...finish('opus', OPUS_RATE, src.channels, granule / OPUS_RATE, payloads, packets), packetsPerPage };
}

/** `seconds` of 48 kHz mono s16le PCM (real speech, looped), `eventSec` per event; wav adds a header event. */
export function pcmInput(seconds: number, eventSec: number, wav: boolean): FormatInput {
  const pcm = readWav16(fixtureBytes(PCM_FILE));
  const src = new Uint8Array(pcm.samples.buffer, pcm.samples.byteOffset, pcm.samples.byteLength);
  const frameBytes = pcm.channels * 2;
  const total = Math.round(seconds * pcm.sampleRate) * frameBytes;
  const step = Math.round(eventSec * pcm.sampleRate) * frameBytes;
  const payloads: Uint8Array[] = [];
  let at = 0;
  for (let done = 0; done < total;) {
    const out = new Uint8Array(Math.min(step, total - done));
    for (let o = 0; o < out.length;) {
      const n = Math.min(out.length - o, src.length - at);
      out.set(src.subarray(at, at + n), o);
      o += n;
      at = (at + n) % src.length;
    }
    payloads.push(out);
    done += out.length;
  }
  if (wav) {
    // The header rides in the first event with the first audio, as a service sends it.
    const first = new Uint8Array(44 + payloads[0]!.length);
    first.set(wavHeader(pcm.sampleRate, pcm.channels, total), 0);
    first.set(payloads[0]!, 44);
    payloads[0] = first;
  }
  return finish(wav ? 'wav' : 'pcm', pcm.sampleRate, pcm.channels, total / frameBytes / pcm.sampleRate, payloads);
}

/** Whole loops of a tagless 22.05 kHz mono MP3 (≥ `seconds`), cut into events of `eventSec`. */
export function mp3Input(seconds: number, eventSec: number): FormatInput {
  const file = fixtureBytes(MP3_FILE);
  const loops = Math.max(1, Math.round(seconds / MP3_LOOP_SEC));
  const all = new Uint8Array(file.length * loops);
  for (let l = 0; l < loops; l++) all.set(file, l * file.length);
  const step = Math.round((eventSec * file.length) / MP3_LOOP_SEC);
  const payloads: Uint8Array[] = [];
  for (let at = 0; at < all.length; at += step) payloads.push(all.subarray(at, Math.min(all.length, at + step)));
  return finish('mp3', MP3_RATE, 1, loops * MP3_LOOP_SEC, payloads);
}

/** One input per format, about `seconds` long each. */
export function formatInputs(seconds: number): FormatInput[] {
  return [
    pcmInput(seconds, 0.2, false),
    pcmInput(seconds, 0.2, true),
    mp3Input(seconds, 0.2),
    opusInput(seconds, 10),
    opusInput(seconds, 1),
  ];
}
