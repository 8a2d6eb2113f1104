import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PlaybackClock } from '../../src/sinks/PlaybackClock.js';
import { BUILTIN_PLAYERS, customPlayer, detectAudioOutput } from '../../src/sinks/audioOutput.js';
import { createPlayerSink, createRealtimeSink, PlayerSink } from '../../src/sinks/PlayerSink.js';
import { SinkError } from '../../src/errors.js';
import type { PcmFrame } from '../../src/codec/types.js';
import { createFakeClock } from './fakeClock.js';

const RATE = 16000;
const FRAME = 320; // 20 ms

function frame(i: number, rate = RATE, n = FRAME): PcmFrame {
  const samples = new Int16Array(n);
  for (let k = 0; k < n; k++) samples[k] = ((i * n + k) % 200) * 10;
  return { samples, encoding: 's16le', sampleRate: rate, channels: 1, startSample: i * n, sampleCount: n };
}

describe('PlaybackClock', () => {
  it('nothing is heard until the player buffer is full; then it plays at real time', () => {
    const c = new PlaybackClock({ sampleRate: 1000, bufferSec: 0.1, leadSec: 0 });
    c.onWrite(50, 0); // half a buffer: waiting
    expect(c.heardSamples(0.05)).toBe(0);
    c.onWrite(450, 0.05); // buffer full: starts now
    expect(c.heardSamples(0.05)).toBe(0);
    expect(c.heardSamples(0.3)).toBe(250);
    expect(c.heardSamples(10)).toBe(500);
  });

  it('after an underrun the player waits for a full buffer again', () => {
    const c = new PlaybackClock({ sampleRate: 1000, bufferSec: 0.1, leadSec: 0 });
    c.onWrite(100, 0); // plays 0..0.1
    expect(c.heardSamples(0.5)).toBe(100);
    c.onWrite(50, 1); // starved: waits
    expect(c.heardSamples(1.05)).toBe(100);
    c.onWrite(50, 1.1); // full again: plays 1.1..1.2
    expect(c.heardSamples(1.15)).toBe(150);
    expect(c.heardSamples(1.3)).toBe(200);
  });

  it('the end of the stream starts a buffer that never filled', () => {
    const c = new PlaybackClock({ sampleRate: 1000, bufferSec: 0.1, leadSec: 0 });
    c.onWrite(30, 0);
    expect(c.heardSamples(1)).toBe(0);
    c.flush(1);
    expect(c.heardSamples(1.02)).toBe(20);
    expect(c.remaining(1.02)).toBeCloseTo(0.01);
  });

  it('writes are paced to keep buffer + lead queued', () => {
    const c = new PlaybackClock({ sampleRate: 1000, bufferSec: 0.1, leadSec: 0.05 });
    expect(c.delayBeforeWrite(0)).toBe(0);
    c.onWrite(200, 0); // plays 0..0.2
    expect(c.delayBeforeWrite(0)).toBeCloseTo(0.05);
    expect(c.remaining(0)).toBeCloseTo(0.2);
  });
});

describe('finding a sound output', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vw-cards-'));
  const noCards = join(dir, 'none');
  const withCard = join(dir, 'cards');
  writeFileSync(withCard, ' 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n                      HDA Intel PCH at 0xf7f10000 irq 32\n');
  const noCardText = join(dir, 'empty');
  writeFileSync(noCardText, '--- no soundcards ---\n');
  const all = () => '/usr/bin/x';

  it('no ALSA card and no PulseAudio server means no device, with a one-line reason', () => {
    for (const cardsPath of [noCards, noCardText]) {
      const r = detectAudioOutput({ env: {}, platform: 'linux', cardsPath, which: all });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).not.toContain('\n');
    }
  });

  it('an ALSA card picks aplay, then ffplay when aplay is missing', () => {
    const r = detectAudioOutput({ env: {}, platform: 'linux', cardsPath: withCard, which: all });
    expect(r.ok && r.player.name).toBe('aplay');
    const r2 = detectAudioOutput({ env: {}, platform: 'linux', cardsPath: withCard, which: (c) => (c === 'ffplay' ? '/x' : null) });
    expect(r2.ok && r2.player.name).toBe('ffplay');
  });

  it('a PulseAudio server picks paplay', () => {
    const r = detectAudioOutput({ env: { PULSE_SERVER: 'unix:/x' }, platform: 'linux', cardsPath: noCards, which: all });
    expect(r.ok && r.player.name).toBe('paplay');
  });

  it('VOICEWIRE_PLAYER names a custom player and its latency', () => {
    const r = detectAudioOutput({
      env: { VOICEWIRE_PLAYER: 'node  player.mjs --x', VOICEWIRE_PLAYER_LATENCY_MS: '150' },
      cardsPath: noCards,
    });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.player.command).toBe('node');
      expect(r.player.args({ sampleRate: 1, channels: 1 })).toEqual(['player.mjs', '--x']);
      expect(r.player.latencyMs).toBe(150);
    }
  });

  it('aplay is asked for raw s16le at the stream rate with a bounded buffer', () => {
    expect(BUILTIN_PLAYERS.aplay!.args({ sampleRate: 48000, channels: 1 })).toEqual([
      '-q',
      '-t',
      'raw',
      '-f',
      'S16_LE',
      '-r',
      '48000',
      '-c',
      '1',
      '--buffer-time=100000',
      '-',
    ]);
  });

  it('createPlayerSink with no device throws NO_AUDIO_DEVICE before starting anything', () => {
    let caught: unknown;
    try {
      createPlayerSink({ detect: { env: {}, platform: 'linux', cardsPath: noCards } });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SinkError);
    expect((caught as SinkError).code).toBe('NO_AUDIO_DEVICE');
  });
});

describe('real-time sink on a fake clock', () => {
  it('paces writes, reports what was heard, and finishes when the last sample is heard', async () => {
    const clock = createFakeClock();
    const sink = createRealtimeSink({ clock, leadMs: 40, positionIntervalMs: 20 });
    const positions: Array<[number, number]> = [];
    sink.on('position', (s: number) => positions.push([clock.now(), s]));
    let finished = false;
    sink.on('finish', () => (finished = true));
    for (let i = 0; i < 10; i++) sink.write(frame(i));
    sink.end();
    await new Promise((r) => setImmediate(r));
    // only latency (0) + lead (40 ms) + the first frame went out at once
    expect(sink.writtenSamples()).toBeLessThanOrEqual(FRAME * 3);
    for (let t = 0; t < 400; t += 10) {
      clock.advance(10);
      await new Promise((r) => setImmediate(r));
    }
    expect(finished).toBe(true);
    expect(sink.heardSamples()).toBe(FRAME * 10);
    // each report is what the clock says was heard then: at most the time elapsed × rate
    for (const [t, s] of positions) expect(s).toBeLessThanOrEqual(Math.ceil((t / 1000) * RATE));
    expect(positions.at(-1)![1]).toBe(FRAME * 10);
  });

  it('a frame in a float encoding is refused with a typed error', async () => {
    const sink = createRealtimeSink({ clock: createFakeClock() });
    const err = await new Promise<Error>((resolve) => {
      sink.on('error', resolve);
      sink.write({ ...frame(0), encoding: 'f32le', samples: new Float32Array(FRAME) } as never);
    });
    expect(err).toBeInstanceOf(SinkError);
  });
});

const here = fileURLToPath(new URL('.', import.meta.url));
const standIn = join(here, '..', 'fixtures', 'player', 'realtime-player.mjs');

describe('child-process player', () => {
  it('the reported playhead follows what a real-time player has consumed, buffer latency included', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'vw-player-')), 'log.jsonl');
    const BUFFER_MS = 120;
    process.env.FAKE_PLAYER_BUFFER_MS = String(BUFFER_MS);
    process.env.FAKE_PLAYER_LOG = log;
    const sink = new PlayerSink(customPlayer(`${process.execPath} ${standIn}`, BUFFER_MS, 'ready'), {});
    const wall = () => performance.timeOrigin + performance.now();
    const positions: Array<{ at: number; samples: number }> = [];
    sink.on('position', (samples: number) => positions.push({ at: wall(), samples }));
    const N = 40; // 0.8 s
    await new Promise<void>((resolve, reject) => {
      sink.on('finish', resolve);
      sink.on('error', reject);
      for (let i = 0; i < N; i++) sink.write(frame(i));
      sink.end();
    });
    delete process.env.FAKE_PLAYER_LOG;
    const heard = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { sample: number; heardAt: number });
    // the player's own truth: samples heard by wall time t
    const truth = (t: number): number => {
      let s = 0;
      for (const b of heard)
        if (b.heardAt <= t) s = Math.max(s, b.sample + Math.min(FRAME * N - b.sample, Math.floor(((t - b.heardAt) / 1000) * RATE)));
      return s;
    };
    const TOLERANCE = (60 / 1000) * RATE; // 60 ms: timer jitter on a loaded 2-core machine
    const mid = positions.filter((p) => p.samples > 0 && p.samples < FRAME * N);
    expect(mid.length).toBeGreaterThan(10);
    for (const p of mid) {
      // never ahead of the sound, and not far behind it
      expect(p.samples).toBeLessThanOrEqual(truth(p.at) + TOLERANCE);
      expect(p.samples).toBeGreaterThanOrEqual(truth(p.at) - 2 * TOLERANCE);
    }
    expect(positions.at(-1)!.samples).toBe(FRAME * N);
  });

  it('a player that dies is a PLAYER_FAILED error on the stream, not a crash', async () => {
    const sink = new PlayerSink(customPlayer(`${process.execPath} -e process.exit(3)`, 0), {});
    const err = await new Promise<Error>((resolve) => {
      sink.on('error', resolve);
      const writeMore = (i: number): void => {
        if (i < 200 && !sink.destroyed) sink.write(frame(i), () => setTimeout(() => writeMore(i + 1), 5));
      };
      writeMore(0);
    });
    expect(err).toBeInstanceOf(SinkError);
    expect((err as SinkError).code).toBe('PLAYER_FAILED');
    expect(err.message).toContain('exited with code 3');
  });

  it('a write in flight when the player dies is called back with PLAYER_FAILED, never left waiting', async () => {
    // Takes its first chunk, then exits: the next paced write is waiting on its timer then.
    const sink = new PlayerSink(customPlayer(`${process.execPath} -e process.stdin.once('data',()=>process.exit(3))`, 0), {});
    sink.on('error', () => undefined);
    const results: Array<Error | null | undefined> = [];
    let issued = 0;
    const writeNext = (i: number): void => {
      if (i >= 500 || sink.destroyed) return;
      issued++;
      sink.write(frame(i), (err) => {
        results.push(err);
        if (!err) writeNext(i + 1);
      });
    };
    writeNext(0);
    await new Promise((resolve) => sink.once('close', resolve));
    await expect.poll(() => results.length, { timeout: 2000 }).toBe(issued);
    const last = results.at(-1);
    expect(last).toBeInstanceOf(SinkError);
    expect((last as SinkError).code).toBe('PLAYER_FAILED');
    expect(last!.message).toMatch(/^the player .* exited with code 3$/);
  });

  it('a player that cannot be started fails the waiting write with PLAYER_FAILED naming it', async () => {
    const sink = new PlayerSink(customPlayer('/nonexistent/player', 0), {});
    sink.on('error', () => undefined);
    const err = await new Promise<Error | null | undefined>((resolve) => sink.write(frame(0), resolve));
    expect(err).toBeInstanceOf(SinkError);
    expect((err as SinkError).code).toBe('PLAYER_FAILED');
    expect(err!.message).toMatch(/^could not start the player \/nonexistent\/player: .*ENOENT/);
  });

  it('a player that cannot be started is a PLAYER_FAILED error', async () => {
    const sink = new PlayerSink(customPlayer('/nonexistent/player', 0), {});
    const err = await new Promise<Error>((resolve) => {
      sink.on('error', resolve);
      sink.write(frame(0));
    });
    expect((err as SinkError).code).toBe('PLAYER_FAILED');
  });
});
