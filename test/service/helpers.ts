/**
 * Test helpers for the local service: real HTTP on loopback, a plain SSE split (the service's
 * own output is regular: `data: …\n\n`), and word-timeline checks.
 */
import type { LocalService } from '../../src/service/index.js';
import { TTS_PATH } from '../../src/service/index.js';

export interface WireEvent {
  audio_base64: string;
  content: string;
  alignment: { audio_duration: number; segments: { text: string; start: number; end: number }[] } | null;
  chunk_seq: number;
  chunk_audio_offset_sec: number;
}

export interface TtsResponse {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
  events: WireEvent[];
  audio: Uint8Array;
}

export async function postTts(svc: LocalService, body: unknown, headers: Record<string, string> = {}): Promise<TtsResponse> {
  const res = await fetch(`${svc.baseUrl}${TTS_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  let events: WireEvent[] = [];
  if ((res.headers.get('content-type') ?? '').startsWith('application/json')) json = JSON.parse(text);
  else events = parseSse(text);
  const parts = events.map((e) => Buffer.from(e.audio_base64, 'base64'));
  return { status: res.status, headers: res.headers, text, json, events, audio: new Uint8Array(Buffer.concat(parts)) };
}

export function parseSse(text: string): WireEvent[] {
  return text
    .split('\n\n')
    .filter((b) => b.trim() !== '')
    .map((block) => {
      if (!block.startsWith('data: ')) throw new Error(`not a data line: ${block.slice(0, 40)}`);
      return JSON.parse(block.slice(6)) as WireEvent;
    });
}

export interface GlobalWord {
  text: string;
  start: number;
  end: number;
  chunkSeq: number;
}

/** The global word timeline from the last snapshot of each chunk. */
export function finalTimeline(events: WireEvent[]): GlobalWord[] {
  const last = new Map<number, WireEvent>();
  for (const e of events) if (e.alignment) last.set(e.chunk_seq, e);
  return [...last.entries()]
    .sort((a, b) => a[0] - b[0])
    .flatMap(([seq, e]) =>
      e.alignment!.segments.map((s) => ({
        text: s.text,
        start: s.start + e.chunk_audio_offset_sec,
        end: s.end + e.chunk_audio_offset_sec,
        chunkSeq: seq,
      })),
    );
}

/** The words of a text, as the service's segments should carry them (punctuation stripped). */
export function wordsOf(text: string): string[] {
  return text
    .split(/\s+/)
    .map((w) => w.replace(/^\p{P}+|\p{P}+$/gu, ''))
    .filter((w) => w !== '');
}

/** Throws unless the timeline is monotonic and every word lies within [0, durationSec]. */
export function checkTimeline(words: GlobalWord[], durationSec: number): void {
  let prevEnd = 0;
  for (const w of words) {
    if (!(w.start >= prevEnd - 1e-6)) throw new Error(`word "${w.text}" starts at ${w.start} before the previous end ${prevEnd}`);
    if (!(w.end >= w.start)) throw new Error(`word "${w.text}" ends before it starts`);
    prevEnd = w.end;
  }
  if (words.length > 0 && words[words.length - 1]!.end > durationSec + 1e-3) {
    throw new Error(`last word ends at ${words[words.length - 1]!.end} after the audio (${durationSec} s)`);
  }
}
