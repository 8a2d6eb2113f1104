/**
 * A tiny SSE speech server on loopback for the client's transport tests: each attempt is answered
 * by the next step of a script. Audio is real PCM (a tone), events follow the spec's shape.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpCore, type HttpCore, type HttpCoreConfig } from '../../src/internal/http/http.js';
import { DEFAULT_API_PATHS } from '../../src/protocol/paths.js';
import { DEFAULT_RETRY_TIMING } from '../../src/internal/http/retry.js';
import type { AudioFrame } from '../../src/codec/types.js';
import type { SpeechPipeline } from '../../src/engine/SpeechPipeline.js';

export const RATE = 16000;
export const EVENT_SAMPLES = 1600; // 100 ms per event

export interface Seen {
  headers: IncomingMessage['headers'];
  body: unknown;
  remotePort: number | undefined;
}

export type Step = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

export function speechEvent(i: number, words: string[]): string {
  const pcm = new Int16Array(EVENT_SAMPLES);
  for (let k = 0; k < pcm.length; k++) pcm[k] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * (i * EVENT_SAMPLES + k)) / RATE));
  const segDur = (EVENT_SAMPLES / RATE) * 0.8;
  const segments = words.slice(0, i + 1).map((text, j) => ({ text, start: j * 0.1, end: j * 0.1 + segDur / 2 }));
  const ev = {
    audio_base64: Buffer.from(pcm.buffer).toString('base64'),
    content: words.join(' '),
    alignment: { audio_duration: ((i + 1) * EVENT_SAMPLES) / RATE, segments },
    chunk_seq: 0,
    chunk_audio_offset_sec: 0,
  };
  return `data: ${JSON.stringify(ev)}\n\n`;
}

export const WORDS = ['one', 'two', 'three', 'four', 'five', 'six'];

/** 200 + SSE head, then `n` events; `end` closes cleanly, `cut` destroys the socket, `hold` stays open. */
export function sse(n: number, after: 'end' | 'cut' | 'hold' = 'end', extraHeaders: Record<string, string> = {}): Step {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req-ok', model: 's2.1-pro', ...extraHeaders });
    for (let i = 0; i < n; i++) res.write(speechEvent(i, WORDS));
    if (after === 'end') res.end();
    else if (after === 'cut') setTimeout(() => res.socket?.destroy(), 20);
  };
}

export function status(code: number, headers: Record<string, string> = {}, reason = 'test_reason'): Step {
  return (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json', 'x-request-id': `req-${code}`, ...headers });
    res.end(JSON.stringify({ status: code, message: `failed with ${code}`, reason }));
  };
}

export interface Loopback {
  baseUrl: string;
  seen: Seen[];
  connections: number;
  server: Server;
  close(): Promise<void>;
}

export async function startLoopback(script: Step[]): Promise<Loopback> {
  const seen: Seen[] = [];
  let attempt = 0;
  const state = { connections: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const s: Seen = { headers: req.headers, body: text ? JSON.parse(text) : undefined, remotePort: req.socket.remotePort };
      seen.push(s);
      const step = script[Math.min(attempt++, script.length - 1)]!;
      step(req, res, s);
    });
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    get connections() {
      return state.connections;
    },
    server,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** An HTTP core whose retry waits are recorded, not slept. */
export function makeCore(baseUrl: string, overrides: Partial<HttpCoreConfig> = {}): HttpCore & { sleeps: number[] } {
  const sleeps: number[] = [];
  const core = createHttpCore({
    baseUrl,
    apiKey: 'test-key',
    headers: {},
    timeoutMs: 5000,
    idleTimeoutMs: 5000,
    maxRetries: 2,
    fetch: globalThis.fetch,
    paths: { ...DEFAULT_API_PATHS },
    retryTiming: { ...DEFAULT_RETRY_TIMING },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    now: () => Date.now(),
    random: () => 0.5,
    ...overrides,
  });
  return Object.assign(core, { sleeps });
}

/** Reads a whole speech stream: the samples, the words, and the error it ended with (if any). */
export async function drain(stream: SpeechPipeline): Promise<{ samples: number; words: string[]; error: Error | null }> {
  const words: string[] = [];
  stream.on('word', (w) => words.push(w.text));
  let samples = 0;
  let error: Error | null = null;
  try {
    for await (const frame of stream as AsyncIterable<AudioFrame>) samples += frame.sampleCount;
  } catch (err) {
    error = err as Error;
  }
  return { samples, words, error };
}
