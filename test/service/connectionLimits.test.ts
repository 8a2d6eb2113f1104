/**
 * Connections that never read or never finish (issue 19, item 11): the write-idle timeout of a
 * speech stream, the connection cap with its 503, and the header timeout. Real sockets on
 * loopback; every wait is bounded.
 */
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalService, TTS_PATH, type LocalService, type LocalServiceOptions } from '../../src/service/index.js';
import { postTts } from './helpers.js';

const BOUND_MS = 15_000;
const POLL_MS = 20;

let svc: LocalService | null = null;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await svc?.close();
  svc = null;
});

async function start(options: LocalServiceOptions): Promise<LocalService> {
  svc = await startLocalService({ workers: 1, ...options });
  return svc;
}

/** Polls `check` until it holds, for at most {@link BOUND_MS}. */
async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function open(s: LocalService): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(s.port, s.host, () => resolve(socket));
    socket.on('error', reject);
    sockets.push(socket);
  });
}

/** Everything the server sends on `socket` until it closes (bounded). */
function readAll(socket: Socket): Promise<{ text: string; ended: boolean }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    const done = (ended: boolean): void => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(parts).toString('latin1'), ended });
    };
    const timer = setTimeout(() => done(false), BOUND_MS);
    socket.on('data', (c: Buffer) => parts.push(c));
    socket.on('close', () => done(true));
    socket.on('error', () => undefined);
    socket.resume();
  });
}

function rawPost(s: LocalService, body: unknown): string {
  const text = JSON.stringify(body);
  return (
    `POST ${TTS_PATH} HTTP/1.1\r\nHost: ${s.host}\r\nAuthorization: Bearer ${s.token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`
  );
}

const LONG_TEXT = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} keeps the speaker talking for a while longer.`).join(' ');

describe('write-idle timeout', () => {
  it('a client that never reads is closed, its synthesis stops, and the service still answers', async () => {
    const lines: string[] = [];
    const s = await start({ writeIdleTimeoutMs: 300, log: (l) => lines.push(l) });
    const socket = await open(s);
    socket.pause(); // never reads: the socket buffers fill and the writer waits for drain
    // ~3 minutes of 48 kHz pcm: far more than loopback socket buffers hold.
    socket.write(rawPost(s, { text: LONG_TEXT, format: 'pcm', sample_rate: 48000 }));
    await until('the stream to stop', () => lines.some((l) => l.includes('write-idle timeout')));
    const stopped = lines.find((l) => l.includes('write-idle timeout'))!;
    const events = Number(/stopped after (\d+) events/.exec(stopped)?.[1]);
    expect(events).toBeGreaterThan(0);
    const ok = await postTts(s, { text: 'Still here.', format: 'pcm', sample_rate: 8000 });
    expect(ok.status).toBe(200);
    // Synthesis stopped there: the request never logged a finished stream.
    expect(lines.filter((l) => l.includes('chunks') && l.includes('pcm@48000'))).toEqual([]);
    // The connection is gone: what was buffered drains, then it ends.
    expect((await readAll(socket)).ended).toBe(true);
  }, 60_000);
});

describe('connection cap', () => {
  it('at the cap the next connection gets a 503 with Connection: close; once one closes, requests succeed', async () => {
    const s = await start({ maxConnections: 8 });
    const idle: Socket[] = [];
    for (let i = 0; i < 8; i++) idle.push(await open(s));
    const ninth = await open(s);
    ninth.write(`GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n`);
    const answer = await readAll(ninth);
    expect(answer.ended).toBe(true);
    expect(answer.text).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.text.toLowerCase()).toContain('connection: close');
    expect(answer.text).toContain('"reason":"unavailable"');
    expect(answer.text).toContain('limit of 8 connections');

    idle[0]!.destroy();
    // The server sees the close a moment later; until then a request may still get the 503.
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      const r = await fetch(`${s.baseUrl}${TTS_PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json', connection: 'close' },
        body: JSON.stringify({ text: 'Hello.', format: 'pcm', sample_rate: 8000 }),
      });
      await r.arrayBuffer();
      status = r.status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    expect(status).toBe(200);
  }, 30_000);

  it('a connection over the cap that sends nothing is dropped after a short grace', async () => {
    const s = await start({ maxConnections: 2 });
    await open(s);
    await open(s);
    const silent = await open(s);
    const t0 = Date.now();
    const r = await readAll(silent);
    expect(r.ended).toBe(true);
    expect(r.text).toBe('');
    expect(Date.now() - t0).toBeLessThan(5_000);
  }, 30_000);
});

describe('request timeouts', () => {
  it('a client dripping its headers gets 408 and is closed once headersTimeoutMs has passed', async () => {
    const s = await start({ headersTimeoutMs: 300 });
    const drip = await open(s);
    drip.write(`POST ${TTS_PATH} HTTP/1.1\r\nHost: x\r\n`);
    let n = 0;
    const timer = setInterval(() => {
      if (!drip.destroyed && n < 500) drip.write(`X-Drip-${n++}: y\r\n`);
    }, POLL_MS);
    const t0 = Date.now();
    const r = await readAll(drip);
    clearInterval(timer);
    expect(r.ended).toBe(true);
    expect(r.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect((await postTts(s, { text: 'Fine.', format: 'pcm', sample_rate: 8000 })).status).toBe(200);
  }, 30_000);
});

describe('voicewire serve flags', () => {
  it('--max-connections and the timeout flags reach the service; bad values are usage errors', async () => {
    const { run } = await import('../../src/cli/serve.js');
    const { EXIT_OK, EXIT_USAGE } = await import('../../src/cli/exitCodes.js');
    for (const argv of [
      ['--max-connections', '0'],
      ['--headers-timeout', 'x'],
      ['--request-timeout', '1.5'],
      ['--write-idle-timeout', '0.5'],
    ]) {
      const err: string[] = [];
      expect(await run(argv, { stdout: () => undefined, stderr: (t) => err.push(t), stopSignal: Promise.resolve() })).toBe(EXIT_USAGE);
      expect(err.join('')).toContain(`--${argv[0]!.slice(2)} must be a positive integer`);
    }
    let stop!: () => void;
    const out: string[] = [];
    const done = run(
      [
        '--port',
        '0',
        '--json',
        '--max-connections',
        '1',
        '--headers-timeout',
        '5000',
        '--request-timeout',
        '6000',
        '--write-idle-timeout',
        '1000',
      ],
      {
        stdout: (t) => out.push(t),
        stderr: () => undefined,
        stopSignal: new Promise<void>((r) => {
          stop = r;
        }),
      },
    );
    await until('serve to start', () => out.length > 0);
    const info = JSON.parse(out[0]!) as { baseUrl: string; token: string };
    const u = new URL(info.baseUrl);
    // One idle connection takes the only place.
    await new Promise<void>((resolve) => {
      const s = connect(Number(u.port), u.hostname, () => resolve());
      sockets.push(s);
    });
    const r = await fetch(`${info.baseUrl}${TTS_PATH}`, { method: 'POST', headers: { authorization: `Bearer ${info.token}` }, body: '{}' });
    expect(r.status).toBe(503);
    await r.arrayBuffer();
    for (const s of sockets.splice(0)) s.destroy();
    stop();
    expect(await done).toBe(EXIT_OK);
  }, 30_000);
});
