/**
 * A simulated call stops when its client leaves, and one simulation's spoken text is bounded
 * (issue 19, item 12).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SpeakFunction } from '../../../src/service/platform/index.js';
import { speakWithSynthesize } from '../../../src/service/platform/index.js';
import { MAX_SIMULATION_SPEECH_CHARS } from '../../../src/service/platform/simulationRequest.js';
import { liveAgent, minimalConfig, startPlatform, TOKEN, type PlatformServer } from './helpers.js';

const BOUND_MS = 10_000;
const AGENT_TURNS = 100;

let p: PlatformServer | null = null;
afterEach(async () => {
  await p?.close();
  p = null;
});

/** A caller's question, then `n` agent answers, each spoken. */
const turns = (n: number) => [
  { user: 'Can you check my order?' },
  ...Array.from({ length: n }, (_, i) => ({ agent: `Still checking, step ${i}.` })),
];

describe('a simulation whose client leaves', () => {
  it('stops speaking at once, ends failed, and hands the abort to the speech function', async () => {
    let calls = 0;
    const signals: (AbortSignal | undefined)[] = [];
    let onThird!: () => void;
    const third = new Promise<void>((resolve) => {
      onThird = resolve;
    });
    const speak: SpeakFunction = async (text, _voice, options) => {
      calls++;
      signals.push(options?.signal);
      if (calls === 3) onThird();
      await new Promise((resolve) => setTimeout(resolve, 2));
      return { characters: text.length, audioSeconds: 1, model: 'slow' };
    };
    p = await startPlatform({}, speak);
    const id = await liveAgent(p, minimalConfig());
    const client = new AbortController();
    const answer = fetch(`${p.url}/v1/agent/agents/${id}/simulate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ turns: turns(AGENT_TURNS) }),
      signal: client.signal,
    });
    await third;
    client.abort();
    await expect(answer).rejects.toThrow();

    const deadline = Date.now() + BOUND_MS;
    let session: any;
    for (;;) {
      session = (await p.call('GET', '/v1/agent/sessions')).body.data[0];
      if (session.status !== 'active' || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(session).toMatchObject({ status: 'failed', end_reason: 'internal_error' });
    const spokenAtEnd = calls;
    expect(spokenAtEnd).toBeLessThan(10);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toBe(spokenAtEnd);
    expect(signals[0]?.aborted).toBe(true);
  });

  it('the service speech function passes the abort on to synthesis', async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const speak = speakWithSynthesize(async (_request, signal) => {
      seen.push(signal);
      return {
        events: [],
        audio: new Uint8Array(0),
        words: [],
        summary: { events: 0, chunks: 0, audioBytes: 0, durationSec: 0.5, words: 0 },
      };
    });
    const controller = new AbortController();
    await speak('Hello.', {}, { signal: controller.signal });
    expect(seen).toEqual([controller.signal]);
  });
});

describe('the text one simulation may speak', () => {
  it(`agent turns over ${MAX_SIMULATION_SPEECH_CHARS} characters are a 413 naming the limit, and nothing is stored`, async () => {
    let calls = 0;
    p = await startPlatform({}, async (text) => {
      calls++;
      return { characters: text.length, audioSeconds: 1 };
    });
    const id = await liveAgent(p, minimalConfig());
    const long = 'word '.repeat(200); // 1,000 characters
    const r = await p.call('POST', `/v1/agent/agents/${id}/simulate`, { turns: Array.from({ length: 51 }, () => ({ agent: long })) });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ status: 413, reason: 'simulation_too_long' });
    expect(r.body.message).toContain(String(MAX_SIMULATION_SPEECH_CHARS));
    expect(calls).toBe(0);
    expect((await p.call('GET', '/v1/agent/sessions')).body.data).toEqual([]);
    const atLimit = await p.call('POST', `/v1/agent/agents/${id}/simulate`, { turns: Array.from({ length: 50 }, () => ({ agent: long })) });
    expect(atLimit.status).toBe(200);
  });
});
