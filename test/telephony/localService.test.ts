/**
 * The bridge on the real chain: local service (espeak-ng over HTTP on loopback) → client →
 * engine pipeline (μ-law 8 kHz, external playhead) → bridge → Twilio-like peer, on an injected
 * clock.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/createClient.js';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { createClientSpeechSource } from '../../src/telephony/clientSpeechSource.js';
import type { SpeechSource, SpeechStream } from '../../src/telephony/speechSource.js';
import type { UtteranceResult } from '../../src/telephony/Utterance.js';
import type { AudioFrame } from '../../src/codec/types.js';
import { startHarness } from './helpers/harness.js';

const RATE = 8000;
const TEXT = 'Thanks for calling. Press one for sales, or two for support.';

let service: LocalService;
beforeAll(async () => {
  service = await startLocalService();
});
afterAll(async () => {
  await service?.close();
});

/** Records every stream the client source made, and the frames read from it. */
function recordingSource(
  inner: SpeechSource,
  opts: { wholeBody?: boolean } = {},
): SpeechSource & { streams: SpeechStream[]; frames: Uint8Array[] } {
  const streams: SpeechStream[] = [];
  const frames: Uint8Array[] = [];
  const source = async (req: Parameters<SpeechSource>[0], ctx: Parameters<SpeechSource>[1]): Promise<SpeechStream> => {
    const s = await inner(req, ctx);
    streams.push(s);
    // The injected clock runs far ahead of real synthesis: let the body (and so every alignment
    // snapshot) arrive first, as it does on a real call where the service outpaces playback.
    if (opts.wholeBody === true && !(s as unknown as Writable).writableFinished) await once(s, 'finish');
    const record = (f: AudioFrame | null): AudioFrame | null => {
      if (f !== null) frames.push(new Uint8Array(f.samples.buffer, f.samples.byteOffset, f.samples.byteLength).slice());
      return f;
    };
    // The call takes frames with readFrame() when the stream has it (the engine's does), else read().
    let inReadFrame = false;
    const read = s.read.bind(s);
    s.read = ((n?: number) => (inReadFrame ? read(n) : record(read(n) as AudioFrame | null))) as typeof s.read;
    const pull = s as SpeechStream & { readFrame?: () => AudioFrame | null };
    const readFrame = pull.readFrame?.bind(s);
    if (readFrame !== undefined) {
      pull.readFrame = () => {
        inReadFrame = true;
        try {
          return record(readFrame());
        } finally {
          inReadFrame = false;
        }
      };
    }
    return s;
  };
  return Object.assign(source, { streams, frames });
}

describe('bridging the local service to a phone', () => {
  it('the phone gets the engine’s μ-law output byte for byte, and every word when it is played', async () => {
    const source = recordingSource(createClientSpeechSource(createClient({ baseUrl: service.baseUrl, apiKey: service.token })), {
      wholeBody: true,
    });
    const h = await startHarness({ source });
    try {
      const { peer, call } = await h.dial();
      const words: { text: string; start: number; at: number }[] = [];
      call.on('word', (w) => words.push({ text: w.text, start: w.start, at: h.clock.now() }));
      let result: UtteranceResult | null = null;
      void call.speak(TEXT).then((r) => {
        result = r;
      });
      await h.runUntil(() => result !== null);
      expect(result!.error).toBeUndefined();
      expect(result!.status).toBe('completed');
      const engineOut = Buffer.concat(source.frames);
      expect(engineOut.length).toBeGreaterThan(RATE); // over a second of speech
      expect(peer.audio().equals(engineOut)).toBe(true);
      expect(peer.audio().subarray(0, 4).toString('latin1')).not.toBe('RIFF');
      const timeline = source.streams[0]!.alignment!.timeline();
      expect(timeline.length).toBeGreaterThan(5);
      expect(words.map((w) => w.text)).toEqual(timeline.map((w) => w.text));
      for (const w of words) {
        const playedAt = peer.timeOfSample(Math.floor(w.start * RATE))!;
        expect(Math.abs(w.at - playedAt)).toBeLessThanOrEqual(20);
      }
    } finally {
      await h.close();
    }
  });

  it('barge-in on real speech: nothing after the clear, heard text is what was played', async () => {
    const source = recordingSource(createClientSpeechSource({ baseUrl: service.baseUrl, apiKey: service.token }));
    const h = await startHarness({ source });
    try {
      const { peer, call } = await h.dial();
      const spoken: string[] = [];
      call.on('word', (w) => spoken.push(w.text));
      void call.speak(TEXT);
      await h.runUntil(() => h.clock.now() >= 1500);
      const played = peer.playedSamples;
      const report = call.interrupt()!;
      await h.runFor(3000);
      expect(peer.mediaAfterClear).toBe(0);
      const timeline = source.streams[0]!.alignment!.timeline();
      const playedWords = timeline.filter((w) => w.start < played / RATE).map((w) => w.text);
      expect(playedWords.length).toBeGreaterThan(0);
      expect(report.heardText).toBe(playedWords.join(' '));
      expect(spoken).toEqual(playedWords);
      expect(report.cut.map((w) => w.text)).toEqual(timeline.slice(playedWords.length).map((w) => w.text));
      expect(source.streams[0]!.destroyed).toBe(true);
    } finally {
      await h.close();
    }
  });
});
