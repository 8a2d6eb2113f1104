/**
 * The playhead between coarse acknowledgements, driven message by message on the injected clock
 * (the provider suite shows it against the Exotel peer; here the acknowledgements come when the
 * test says, so a late one and an idle phone can be shown).
 */
import { describe, expect, it } from 'vitest';
import { ClockedPlayhead } from '../../src/telephony/ClockedPlayhead.js';
import type { LineFormat } from '../../src/telephony/lineFormat.js';
import type { OutboundAdapter } from '../../src/telephony/OutboundMedia.js';
import { Utterance } from '../../src/telephony/Utterance.js';
import { greeting } from './helpers/fixtureSource.js';
import { greetingSamples, LineSpeechStream } from './helpers/lineSpeech.js';
import { ManualClock } from './helpers/ManualClock.js';

const LINE: LineFormat = { encoding: 'l16', sampleRate: 8000, byteOrder: 'le' };
const PER_MS = 8;
/** One Exotel batch at 8 kHz: 3200 bytes, 1600 samples, 200 ms. */
const BATCH_SAMPLES = 1600;
const BATCH_MS = 200;

function setup(): {
  clock: ManualClock;
  playhead: ClockedPlayhead;
  wire: OutboundAdapter;
  utterance: Utterance;
  words: { text: string; at: number }[];
  runTo(t: number): void;
} {
  const clock = new ManualClock();
  const playhead = new ClockedPlayhead(clock);
  playhead.setLine(LINE);
  const wire = playhead.wrap({
    chunking: () => ({ quantumBytes: 320, minBatchBytes: 3200 }),
    media: () => 'media',
    ackRequest: (name) => name,
    clear: () => 'clear',
  });
  const utterance = new Utterance(1, { text: greeting.text }, { markEveryFrames: 5, wordMarks: true }, () => {}, LINE);
  const abort = new AbortController();
  const stream = new LineSpeechStream(greetingSamples(LINE), LINE.sampleRate, greeting.words, abort.signal);
  const words: { text: string; at: number }[] = [];
  utterance.attach(stream, { wake: () => {}, word: (w) => words.push({ text: w.text, at: clock.now() }), warning: () => {} });
  utterance.sentSamples = greetingSamples(LINE).length; // the engine's whole output is in the batcher
  playhead.begin(utterance);
  const runTo = (t: number): void => {
    while (clock.fireNext(t));
    clock.set(t);
  };
  return { clock, playhead, wire, utterance, words, runTo };
}

/** One batch out, followed by its acknowledgement request, as the batcher sends them. */
function sendBatch(wire: OutboundAdapter, k: number): void {
  wire.media(new Uint8Array(BATCH_SAMPLES * 2));
  wire.ackRequest(`vw:1:${k}`);
}

/** The greeting's words that start before `ms` into it. */
function wordsBefore(ms: number): string[] {
  return greeting.words.filter((w) => w.start * 1000 < ms).map((w) => w.text);
}

describe('the playhead between coarse acknowledgements', () => {
  it('an idle phone plays a batch from when it is sent: words fire as it reaches them', () => {
    const { wire, utterance, words, runTo } = setup();
    sendBatch(wire, 0);
    runTo(150);
    expect(words).toEqual([{ text: 'Thanks', at: 60 + 1 / PER_MS }]);
    expect(utterance.playedSamples).toBe(Math.floor(0.06 * 8000) + 1);
  });

  it('runs on from an acknowledgement through the batch already sent, and stops at the next waiting request when its acknowledgement is late', () => {
    const { playhead, wire, utterance, words, runTo } = setup();
    sendBatch(wire, 0);
    sendBatch(wire, 1);
    runTo(BATCH_MS);
    playhead.onAck('vw:1:0'); // batch 0 played; batch 1 plays from now
    runTo(BATCH_MS + 300); // batch 1 ends at 400 ms; its acknowledgement does not come
    expect(words.map((w) => w.text)).toEqual(wordsBefore(2 * BATCH_MS));
    const forWord = greeting.words.find((w) => w.text === 'for')!; // starts at 420 ms: in batch 2
    expect(forWord.start * 1000).toBeGreaterThan(2 * BATCH_MS);
    playhead.sync();
    expect(utterance.playedSamples).toBe(2 * BATCH_SAMPLES); // never past the waiting request
    // The late acknowledgement: nothing more was sent, so the phone is idle at the end of batch 1.
    playhead.onAck('vw:1:1');
    runTo(BATCH_MS + 500);
    expect(utterance.playedSamples).toBe(2 * BATCH_SAMPLES);
    // Batch 2 goes to the idle phone at 700 ms: it plays from then, 'for' 20 ms in.
    sendBatch(wire, 2);
    runTo(BATCH_MS + 600);
    expect(words.at(-1)).toEqual({ text: 'for', at: 700 + 20 + 1 / PER_MS });
  });

  it('an acknowledgement never moves the playhead back, and an earlier one changes nothing', () => {
    const { playhead, wire, utterance, runTo } = setup();
    sendBatch(wire, 0);
    sendBatch(wire, 1);
    wire.ackRequest('vw:1:extra'); // a second request after batch 1 (a word mark): same coverage
    runTo(BATCH_MS);
    playhead.onAck('vw:1:0');
    runTo(BATCH_MS + 150);
    playhead.sync();
    const at350 = utterance.playedSamples;
    expect(at350).toBe(BATCH_SAMPLES + 150 * PER_MS);
    playhead.onAck('vw:1:0'); // a repeat: already forgotten
    playhead.sync();
    expect(utterance.playedSamples).toBe(at350);
    playhead.onAck('vw:1:1');
    playhead.onAck('vw:1:extra');
    expect(utterance.playedSamples).toBe(2 * BATCH_SAMPLES);
  });

  it('after end() nothing moves the playhead and no timer is left', () => {
    const { clock, playhead, wire, utterance, runTo } = setup();
    sendBatch(wire, 0);
    sendBatch(wire, 1);
    playhead.end();
    expect(clock.pendingTimers).toBe(0);
    runTo(BATCH_MS);
    playhead.onAck('vw:1:0');
    playhead.sync();
    expect(utterance.playedSamples).toBe(0);
  });
});
