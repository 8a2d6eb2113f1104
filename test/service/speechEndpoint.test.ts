import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../src/service/index.js';
import { checkTimeline, finalTimeline, postTts, wordsOf } from './helpers.js';

let svc: LocalService;
beforeAll(async () => {
  svc = await startLocalService();
});
afterAll(async () => {
  await svc.close();
});

const TEXT = 'Hello world, this is 42 cats. The second sentence follows here!';

describe('speech endpoint: pcm and wav', () => {
  it('pcm: s16le mono at the requested rate whose length matches the last snapshot', async () => {
    const r = await postTts(svc, { text: TEXT, format: 'pcm', sample_rate: 16000 });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const durationSec = r.audio.length / 2 / 16000;
    const words = finalTimeline(r.events);
    expect(words.map((w) => w.text)).toEqual(wordsOf(TEXT));
    checkTimeline(words, durationSec);
    // espeak speaks ~ 2.5 words/s here; 11 words → a few seconds.
    expect(durationSec).toBeGreaterThan(2.5);
    expect(durationSec).toBeLessThan(8);
    const lastChunk = r.events[r.events.length - 1]!;
    expect(lastChunk.chunk_audio_offset_sec + lastChunk.alignment!.audio_duration).toBeCloseTo(durationSec, 2);
  });

  it('wav: a RIFF header with sizes 0xFFFFFFFF, then the samples', async () => {
    const r = await postTts(svc, { text: 'Short and sweet.', format: 'wav', sample_rate: 24000 });
    expect(r.status).toBe(200);
    const v = new DataView(r.audio.buffer, r.audio.byteOffset);
    expect(Buffer.from(r.audio.subarray(0, 4)).toString()).toBe('RIFF');
    expect(v.getUint32(4, true)).toBe(0xffffffff);
    expect(v.getUint32(24, true)).toBe(24000);
    expect(v.getUint16(22, true)).toBe(1);
    expect(v.getUint32(40, true)).toBe(0xffffffff);
    const durationSec = (r.audio.length - 44) / 2 / 24000;
    checkTimeline(finalTimeline(r.events), durationSec);
    expect(finalTimeline(r.events).map((w) => w.text)).toEqual(['Short', 'and', 'sweet']);
  });

  it('the audio is speech, not silence: voiced RMS well above the noise floor', async () => {
    const r = await postTts(svc, { text: 'Speech is here.', format: 'pcm', sample_rate: 22050 });
    const s = new Int16Array(r.audio.buffer.slice(r.audio.byteOffset, r.audio.byteOffset + r.audio.length));
    let sum = 0;
    for (const x of s) sum += x * x;
    const rmsDb = 20 * Math.log10(Math.sqrt(sum / s.length) / 32768);
    expect(rmsDb).toBeGreaterThan(-35);
    expect(rmsDb).toBeLessThan(-6);
  });

  it('snapshots are cumulative per chunk: null before the first, then growing, never appended across chunks', async () => {
    const r = await postTts(svc, { text: TEXT, format: 'pcm', latency: 'balanced', min_chunk_length: 0 });
    expect(new Set(r.events.map((e) => e.chunk_seq))).toEqual(new Set([0, 1]));
    for (const seq of [0, 1]) {
      const evs = r.events.filter((e) => e.chunk_seq === seq);
      expect(evs[0]!.alignment).toBeNull();
      let prev = 0;
      let repeats = 0;
      let lastJson = '';
      for (const e of evs) {
        if (!e.alignment) {
          expect(prev).toBe(0);
          continue;
        }
        expect(e.alignment.segments.length).toBeGreaterThanOrEqual(prev);
        prev = e.alignment.segments.length;
        const json = JSON.stringify(e.alignment);
        if (json === lastJson) repeats++;
        lastJson = json;
      }
      expect(repeats).toBeGreaterThan(0);
    }
    expect(r.events.filter((e) => e.chunk_seq === 1)[0]!.chunk_audio_offset_sec).toBeGreaterThan(1);
  });

  it('every response carries x-request-id, and the model used', async () => {
    const a = await postTts(svc, { text: 'Hi.', format: 'pcm' }, { model: 's1' });
    const b = await postTts(svc, { text: 'Hi.', format: 'pcm' }, { model: 'no-such-model' });
    const c = await postTts(svc, { text: 'Hi.', format: 'pcm' });
    expect(a.headers.get('model')).toBe('s1');
    expect(b.headers.get('model')).toBe('s2.1-pro');
    expect(c.headers.get('model')).toBe('s2.1-pro');
    for (const r of [a, b, c]) expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set([a, b, c].map((r) => r.headers.get('x-request-id'))).size).toBe(3);
  });

  it('two requests at once both complete with their own words', async () => {
    const [a, b] = await Promise.all([
      postTts(svc, { text: 'Alpha bravo charlie.', format: 'pcm', sample_rate: 8000 }),
      postTts(svc, { text: 'Delta echo foxtrot golf.', format: 'wav', sample_rate: 8000 }),
    ]);
    expect(finalTimeline(a.events).map((w) => w.text)).toEqual(['Alpha', 'bravo', 'charlie']);
    expect(finalTimeline(b.events).map((w) => w.text)).toEqual(['Delta', 'echo', 'foxtrot', 'golf']);
  });

  it('a client that leaves mid-stream stops its synthesis and the service carries on', async () => {
    const ac = new AbortController();
    const res = await fetch(`${svc.baseUrl}/v1/tts/stream/with-timestamp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.token}` },
      body: JSON.stringify({ text: 'This is a long text. '.repeat(40), format: 'pcm', latency: 'balanced', min_chunk_length: 0 }),
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    ac.abort();
    await reader.read().catch(() => undefined);
    const r = await postTts(svc, { text: 'Still here.', format: 'pcm' });
    expect(finalTimeline(r.events).map((w) => w.text)).toEqual(['Still', 'here']);
  });

  it('latency low makes the first chunk the first clause', async () => {
    const text = 'Right away now, you hear this. Then the rest of the text follows at its own pace.';
    const r = await postTts(svc, { text, format: 'pcm', sample_rate: 8000, latency: 'low' });
    expect(r.events[0]!.content).toBe('Right away now,');
    expect(finalTimeline(r.events).map((w) => w.text)).toEqual(wordsOf(text));
  });
});
