/**
 * Long speech streams as a service sends them, generated lazily (never the whole stream in
 * memory): real encoded audio looped (the opus / mp3 fixtures, the reference PCM), one
 * `chunk_seq` per loop with its `chunk_audio_offset_sec`, and cumulative alignment snapshots that
 * grow as the chunk's words are reached and repeat byte for byte in between.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fixtureBytes, OggPager, OPUS_RATE, readOpus, readWav16, sseEvent, wavHeader, type OpusSource, type Pcm } from './audio.js';
import { jsonBytes, sharedEventWriter } from './sseBytes.js';

export type StreamFormat = 'opus' | 'mp3' | 'pcm' | 'wav';

export interface SpeechStreamSpec {
  format: StreamFormat;
  /** Seconds of audio in the whole stream. */
  seconds: number;
  /** Audio per event, in seconds (opus: rounded to whole 20 ms packets, one Ogg page per event). @defaultValue 0.2 */
  eventSec?: number;
  /** Carry alignment snapshots. @defaultValue true */
  words?: boolean;
  /**
   * How each event's bytes are made. 'bytes': written straight into slab memory, no string per
   * event (bench/lib/sseBytes.ts), as a client receives them from a socket. 'strings': the same
   * bytes built with base64 and JSON strings (`sseEvent`), kept as the reference the byte writer
   * is checked against (test/bench/sseBytes.test.ts). @defaultValue 'bytes'
   */
  build?: 'bytes' | 'strings';
}

export interface SpeechStream {
  format: StreamFormat;
  /** The rate the decoded PCM comes out at. */
  sampleRate: number;
  /** For pcm: the request's sample_rate. */
  declaredRate?: number;
  /** Seconds of audio per chunk_seq (one loop of the source). */
  loopSec: number;
  /** The SSE events, generated as they are pulled. */
  events: Generator<Buffer>;
}

export interface TimedSpeechStream extends Omit<SpeechStream, 'events'> {
  events: Generator<TimedEvent>;
}

function* bytesOnly(timed: Generator<TimedEvent>): Generator<Buffer> {
  for (const t of timed) yield t.event;
}

interface Piece {
  bytes: Uint8Array;
  /** Stream time (s) the piece's audio starts and ends at. */
  start: number;
  end: number;
}

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));
const WORDS = (
  JSON.parse(readFileSync(here('../../test/fixtures/telephony/greeting.words.json'), 'utf8')) as {
    words: { text: string; start: number; end: number }[];
  }
).words;
const MP3_FILE = 'mp3/no-tag.mp3';
const MP3_LOOP_SEC = 2.84725; // ffprobe of the fixture
const PCM_FILE = 'opus/default-pages.ref.wav';
const OPUS_FILE = 'opus/20ms-pages.opus';

let opusSource: OpusSource | undefined;
let pcmSource: Pcm | undefined;

function* opusPieces(seconds: number, eventSec: number): Generator<Piece> {
  opusSource ??= readOpus(fixtureBytes(OPUS_FILE));
  const src = opusSource;
  const pager = new OggPager(0x5eed);
  const perPage = Math.max(1, Math.round(eventSec / 0.02));
  yield { bytes: pager.page([src.head], 0, 0x02), start: 0, end: 0 };
  yield { bytes: pager.page([src.tags], 0), start: 0, end: 0 };
  const total = Math.round(seconds * OPUS_RATE);
  let granule = 0;
  let i = 0;
  const page: Uint8Array[] = [];
  while (granule < total) {
    const start = granule / OPUS_RATE;
    page.length = 0;
    while (page.length < perPage && granule < total) {
      const k = i++ % src.packets.length;
      page.push(src.packets[k]!);
      granule += src.durations[k]!;
    }
    // A view of the pager's reused memory: the event is written before the next page is made.
    yield { bytes: pager.pageView(page, granule, granule >= total ? 0x04 : 0), start, end: granule / OPUS_RATE };
  }
}

function* pcmPieces(seconds: number, eventSec: number, header: boolean): Generator<Piece> {
  pcmSource ??= readWav16(fixtureBytes(PCM_FILE));
  const pcm = pcmSource;
  const src = new Uint8Array(pcm.samples.buffer, pcm.samples.byteOffset, pcm.samples.byteLength);
  const bytesPerSec = pcm.sampleRate * pcm.channels * 2;
  const total = Math.round(seconds * pcm.sampleRate) * pcm.channels * 2;
  const step = Math.round(eventSec * pcm.sampleRate) * pcm.channels * 2;
  if (header) yield { bytes: wavHeader(pcm.sampleRate, pcm.channels, total), start: 0, end: 0 };
  let at = 0;
  for (let done = 0; done < total;) {
    const n = Math.min(step, total - done, src.length - at);
    yield { bytes: src.subarray(at, at + n), start: done / bytesPerSec, end: (done + n) / bytesPerSec };
    done += n;
    at = (at + n) % src.length;
  }
}

function* mp3Pieces(seconds: number, eventSec: number): Generator<Piece> {
  const file = fixtureBytes(MP3_FILE);
  const bytesPerSec = file.length / MP3_LOOP_SEC;
  const step = Math.max(1, Math.round(eventSec * bytesPerSec));
  const loops = Math.ceil(seconds / MP3_LOOP_SEC);
  for (let l = 0; l < loops; l++) {
    for (let at = 0; at < file.length; at += step) {
      const end = Math.min(file.length, at + step);
      yield { bytes: file.subarray(at, end), start: l * MP3_LOOP_SEC + at / bytesPerSec, end: l * MP3_LOOP_SEC + end / bytesPerSec };
    }
  }
}

/** One SSE event with the stream time its audio covers. */
export interface TimedEvent {
  event: Buffer;
  start: number;
  end: number;
}

const GREETING = 'Thanks for calling voicewire.';
const GREETING_JSON = jsonBytes(GREETING);
const EMPTY_JSON = jsonBytes('');
/**
 * JSON of the snapshot of the first `count` words of a loop, by `${loopSec}/${count}`: made once
 * per process and shared by every stream (the concurrent-peak bench runs 100 streams, and their
 * generators' memory counts per stream).
 */
const snapshotJson = new Map<string, Uint8Array>();
/** chunk_audio_offset_sec is written with this many decimals (then as JSON.stringify writes the number). */
const OFFSET_DECIMALS = 6;

function* withAlignment(pieces: Generator<Piece>, loopSec: number, words: boolean, build: 'bytes' | 'strings'): Generator<TimedEvent> {
  // The real word times of the greeting (espeak-ng at 170 words/min), as many as fit in a loop:
  // an hour of such a stream carries the word count of an hour of speech.
  const scaled = WORDS.filter((w) => w.end <= loopSec);
  let offsetSeq = -1;
  let offsetJson = jsonBytes(0);
  for (const p of pieces) {
    const chunkSeq = Math.floor(p.start / loopSec);
    const offset = chunkSeq * loopSec;
    let count = 0;
    if (words) {
      const localEnd = p.end - offset;
      const n = scaled.findIndex((w) => w.start >= localEnd);
      count = n < 0 ? scaled.length : n;
    }
    let event: Buffer;
    if (build === 'strings') {
      const alignment = count > 0 ? { audio_duration: loopSec, segments: scaled.slice(0, count) } : null;
      event = Buffer.from(
        sseEvent(p.bytes, {
          alignment,
          chunkSeq,
          chunkAudioOffsetSec: +offset.toFixed(OFFSET_DECIMALS),
          content: chunkSeq === 0 ? GREETING : '',
        }),
      );
    } else {
      if (chunkSeq !== offsetSeq) {
        offsetSeq = chunkSeq;
        offsetJson = jsonBytes(+offset.toFixed(OFFSET_DECIMALS));
      }
      let alignment: Uint8Array | null = null;
      if (count > 0) {
        // Every loop repeats the same snapshots (the first `count` words): their JSON is made once.
        const key = `${loopSec}/${count}`;
        alignment = snapshotJson.get(key) ?? null;
        if (alignment === null)
          snapshotJson.set(key, (alignment = jsonBytes({ audio_duration: loopSec, segments: scaled.slice(0, count) })));
      }
      event = sharedEventWriter.event(p.bytes, {
        content: chunkSeq === 0 ? GREETING_JSON : EMPTY_JSON,
        alignment,
        chunkSeq,
        offset: offsetJson,
      });
    }
    yield { event, start: p.start, end: p.end };
  }
}

/** A lazily generated speech stream of `spec.seconds` of real audio. */
export function speechStream(spec: SpeechStreamSpec): SpeechStream {
  const timed = timedSpeechStream(spec);
  return { ...timed, events: bytesOnly(timed.events) };
}

/** {@link speechStream} with each event's audio times (for pacing a feed on the real clock). */
export function timedSpeechStream(spec: SpeechStreamSpec): TimedSpeechStream {
  const eventSec = spec.eventSec ?? 0.2;
  const words = spec.words ?? true;
  const build = spec.build ?? 'bytes';
  switch (spec.format) {
    case 'opus': {
      opusSource ??= readOpus(fixtureBytes(OPUS_FILE));
      const loopSec = opusSource.durations.reduce((a, b) => a + b, 0) / OPUS_RATE;
      return {
        format: 'opus',
        sampleRate: OPUS_RATE,
        loopSec,
        events: withAlignment(opusPieces(spec.seconds, eventSec), loopSec, words, build),
      };
    }
    case 'pcm':
    case 'wav': {
      pcmSource ??= readWav16(fixtureBytes(PCM_FILE));
      const loopSec = pcmSource.samples.length / pcmSource.channels / pcmSource.sampleRate;
      const events = withAlignment(pcmPieces(spec.seconds, eventSec, spec.format === 'wav'), loopSec, words, build);
      return { format: spec.format, sampleRate: pcmSource.sampleRate, declaredRate: pcmSource.sampleRate, loopSec, events };
    }
    case 'mp3':
      return {
        format: 'mp3',
        sampleRate: 22050,
        loopSec: MP3_LOOP_SEC,
        events: withAlignment(mp3Pieces(spec.seconds, eventSec), MP3_LOOP_SEC, words, build),
      };
  }
}
