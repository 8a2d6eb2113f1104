/**
 * The runnable example bridge, as a whole process on 127.0.0.1 in front of the local voice
 * service (through a counting proxy, so every speech request that reaches the service is seen):
 * a signed TwiML webhook is answered and an unsigned or forged one gets 403; a media socket
 * without a valid stream token is closed with no speech request reaching the service, and a
 * stream with the token from the TwiML speaks.
 */
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once, type EventEmitter } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { TTS_PATH, startLocalService, type LocalService } from '../../../src/service/index.js';
import { createStreamToken } from '../../../src/telephony/auth/index.js';
import { parseXml } from '../answer/strictXml.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const AUTH_TOKEN = '0123456789abcdef0123456789abcdef';
const WAIT_MS = 20_000;

function runExample(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/twilio-bridge.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TWILIO_AUTH_TOKEN: '', VOICEWIRE_STREAM_SECRET: '', ...env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, exited, out: () => out, err: () => err };
}

/** Resolves once `check()` holds, re-checking whenever one of `on` fires (no polling). */
function waitFor(check: () => boolean, what: string, on: [EventEmitter, string][]): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`timed out waiting for ${what}`));
    }, WAIT_MS);
    const onEvent = (): void => {
      if (!check()) return;
      cleanup();
      resolve();
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      for (const [emitter, event] of on) emitter.off(event, onEvent);
    };
    for (const [emitter, event] of on) emitter.on(event, onEvent);
    onEvent();
  });
}

function sign(url: string, params: Record<string, string>): string {
  const data =
    url +
    Object.keys(params)
      .sort()
      .map((k) => k + params[k])
      .join('');
  return createHmac('sha1', AUTH_TOKEN).update(data).digest('base64');
}

async function post(base: string, path: string, params: Record<string, string>, headers: Record<string, string> = {}) {
  const u = new URL(path, base);
  const req = request({
    host: u.hostname,
    port: u.port,
    path: u.pathname + u.search,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
  req.end(new URLSearchParams(params).toString());
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let body = '';
  for await (const chunk of res as AsyncIterable<Buffer>) body += chunk.toString();
  return { status: res.statusCode!, body };
}

function startMessage(callSid: string, customParameters: Record<string, string>): string {
  return JSON.stringify({
    event: 'start',
    sequenceNumber: '1',
    streamSid: `MZ${callSid}`,
    start: {
      streamSid: `MZ${callSid}`,
      callSid,
      accountSid: 'AC',
      tracks: ['inbound'],
      customParameters,
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
    },
  });
}

/** Opens a media socket, sends `start` (and a DTMF digit), and records what comes back until it closes. */
async function dial(url: string, callSid: string, customParameters: Record<string, string>) {
  const ws = new WebSocket(url);
  await once(ws, 'open');
  const events: string[] = [];
  let closed = false;
  ws.on('message', (d: Buffer) => events.push((JSON.parse(d.toString()) as { event: string }).event));
  ws.on('close', () => {
    closed = true;
  });
  ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  ws.send(startMessage(callSid, customParameters));
  ws.send(JSON.stringify({ event: 'dtmf', sequenceNumber: '2', streamSid: `MZ${callSid}`, dtmf: { track: 'inbound_track', digit: '5' } }));
  return { ws, events, isClosed: () => closed };
}

let service: LocalService;
let proxy: Server;
let proxyUrl: string;
const speechRequests: string[] = [];

beforeAll(async () => {
  service = await startLocalService();
  const upstream = new URL(service.baseUrl);
  // Every request the bridge makes to the voice service passes here and is counted on arrival.
  proxy = createServer((req, res) => {
    if (req.url?.startsWith(TTS_PATH) === true) speechRequests.push(req.url);
    const up = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode!, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
});

afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await service?.close();
});

async function started(run: ReturnType<typeof runExample>): Promise<{ http: string; ws: string }> {
  const line = /twilio bridge: (ws:\/\/(\S+?)\/media)/;
  await waitFor(() => line.test(run.out()), 'the bridge to listen', [[run.child.stdout, 'data']]);
  const m = line.exec(run.out())!;
  return { ws: m[1]!, http: `http://${m[2]!}` };
}

/**
 * One SIGTERM, and the bridge exits 0 by itself. (A second one is the user insisting: the default
 * action kills it, which a test that signalled twice saw as a failure whenever the first stop was
 * still closing.)
 */
async function stop(run: ReturnType<typeof runExample>): Promise<void> {
  run.child.kill('SIGTERM');
  const [code, signal] = await run.exited;
  expect(signal).toBeNull();
  expect(code).toBe(0);
}

describe('the example bridge with --auth-token', () => {
  it('answers a signed /twiml, refuses unsigned and forged ones, and only a stream with its token speaks', async () => {
    const run = runExample(['--port', '0', '--base-url', proxyUrl, '--api-key', service.token, '--auth-token', AUTH_TOKEN]);
    try {
      const { http, ws } = await started(run);
      expect(run.err()).not.toContain('unauthenticated');

      // (b) the webhook: signed over the URL the bridge was asked for, as Twilio signs it
      const params = { CallSid: 'CAgood', From: '+14155550100', To: '+14155550199' };
      const signed = await post(http, '/twiml', params, { 'x-twilio-signature': sign(`${http}/twiml`, params) });
      expect(signed.status).toBe(200);
      const stream = parseXml(signed.body).children[0]!.children[0]!;
      expect(stream.name).toBe('Stream');
      expect(stream.attributes['url']).toBe(ws);
      const custom = Object.fromEntries(stream.children.map((p) => [p.attributes['name']!, p.attributes['value']!]));
      expect(Object.keys(custom).sort()).toEqual(['greeting', 'vw_token']);

      expect((await post(http, '/twiml', params)).status).toBe(403);
      expect(
        (await post(http, '/twiml', params, { 'x-twilio-signature': sign(`${http}/twiml`, { ...params, CallSid: 'CAother' }) })).status,
      ).toBe(403);
      expect((await post(http, '/twiml', { ...params, Digits: '1' }, { 'x-twilio-signature': sign(`${http}/twiml`, params) })).status).toBe(
        403,
      );

      // (a) media sockets without a valid token: none, forged, another call's, expired
      const forged = createStreamToken({ secret: 'not-the-bridge-secret-0123456789', callId: 'CAbad', ttlMs: 60_000, now: Date.now() });
      const attempts = [
        await dial(ws, 'CAnone', { greeting: 'Say this for nobody.' }),
        await dial(ws, 'CAforged', { greeting: 'Say this for a forger.', vw_token: forged }),
        await dial(ws, 'CAstolen', { greeting: 'Say this for a thief.', vw_token: custom['vw_token']! }),
        await dial(ws, 'CAjunk', { vw_token: '"><script>' }),
      ];
      for (const a of attempts) await waitFor(a.isClosed, 'the unauthenticated socket to be closed', [[a.ws, 'close']]);
      for (const a of attempts) expect(a.events).toEqual([]);
      expect(speechRequests).toEqual([]);
      expect(run.out()).toMatch(/refused stream for call CAnone: STREAM_TOKEN_MISSING/);
      expect(run.out()).toMatch(/refused stream for call CAforged: STREAM_TOKEN_INVALID/);
      expect(run.out()).toMatch(/refused stream for call CAstolen: STREAM_TOKEN_INVALID/);
      expect(run.out()).toMatch(/refused stream for call CAjunk: STREAM_TOKEN_MALFORMED/);

      // the real call, with the token its TwiML carried, speaks (one request: the greeting, then the digit)
      const good = await dial(ws, 'CAgood', custom);
      await waitFor(() => good.events.filter((e) => e === 'media').length >= 3, 'greeting audio', [[good.ws, 'message']]);
      expect(good.isClosed()).toBe(false);
      expect(speechRequests.length).toBeGreaterThanOrEqual(1);
      expect(run.out()).toContain('call CAgood started');
      good.ws.terminate();
      await waitFor(() => run.out().includes('call ended (socketClosed)'), 'the call to end', [[run.child.stdout, 'data']]);
    } catch (err) {
      run.child.kill('SIGKILL');
      throw err;
    }
    await stop(run);
  });
});

describe('the example bridge without an auth token', () => {
  it('warns once that the webhook is unauthenticated, answers it, and still requires the stream token', async () => {
    const run = runExample(['--port', '0', '--base-url', proxyUrl, '--api-key', service.token]);
    try {
      const { http, ws } = await started(run);
      expect(run.err().match(/unauthenticated/g)).toHaveLength(1);
      const answered = await post(http, '/twiml', { CallSid: 'CAopen' });
      expect(answered.status).toBe(200);
      const before = speechRequests.length;
      const a = await dial(ws, 'CAopen', { greeting: 'No token here.' });
      await waitFor(a.isClosed, 'the socket to be closed', [[a.ws, 'close']]);
      expect(a.events).toEqual([]);
      expect(speechRequests.length).toBe(before);
    } catch (err) {
      run.child.kill('SIGKILL');
      throw err;
    }
    await stop(run);
  });

  it('prints its usage with --help and exits 0', async () => {
    const run = runExample(['--help']);
    const [code] = await run.exited;
    expect(code).toBe(0);
    expect(run.out()).toMatch(/--auth-token/);
    expect(run.out()).toMatch(/--public-url/);
  });
});
