/**
 * Whole processes: the runnable example bridge, and a hang-up mid-utterance that must leave
 * nothing open (the child exits on its own).
 */
import { spawn } from 'node:child_process';
import { once, type EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { clip } from '../fixtures/vad/corpus.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function runTs(file: string, args: string[] = []) {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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
    }, 20_000);
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

describe('whole processes', () => {
  it('hanging up mid-utterance aborts synthesis and leaves no open handles', async () => {
    const run = runTs('test/telephony/fixtures/hangupMidUtterance.ts');
    const [code, signal] = await run.exited;
    expect(run.err()).toBe('');
    expect(signal).toBeNull();
    expect(code).toBe(0);
    const report = JSON.parse(run.out().trim()) as { status: string; aborted: boolean; timeoutsAfterClose: number };
    expect(report).toMatchObject({ status: 'aborted', aborted: true, timeoutsAfterClose: 0 });
  });

  it('the example bridge greets from customParameters and answers a DTMF digit with speech', async () => {
    const run = runTs('examples/twilio-bridge.ts', ['--port', '0']);
    try {
      await waitFor(() => /twilio bridge: (ws:\/\/\S+)/.test(run.out()), 'the bridge to listen', [[run.child.stdout, 'data']]);
      const url = /twilio bridge: (ws:\/\/\S+)/.exec(run.out())![1]!;
      // The bridge only speaks on a stream that shows the per-call token its TwiML issued.
      const twiml = await fetch(url.replace(/^ws:/, 'http:').replace(/\/media$/, '/twiml'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'CallSid=CAex',
      });
      const token = /name="vw_token" value="([A-Za-z0-9_-]+)"/.exec(await twiml.text())![1]!;
      const ws = new WebSocket(url);
      await once(ws, 'open');
      const events: { event: string; payload?: string }[] = [];
      ws.on('message', (d: Buffer) => {
        const m = JSON.parse(d.toString()) as { event: string; media?: { payload: string } };
        events.push({ event: m.event, ...(m.media ? { payload: m.media.payload } : {}) });
      });
      ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
      ws.send(
        JSON.stringify({
          event: 'start',
          sequenceNumber: '1',
          streamSid: 'MZex',
          start: {
            streamSid: 'MZex',
            callSid: 'CAex',
            accountSid: 'AC',
            tracks: ['inbound'],
            customParameters: { greeting: 'Welcome to the test line.', vw_token: token },
            mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
          },
        }),
      );
      await waitFor(() => events.filter((e) => e.event === 'media').length >= 3, 'greeting audio', [[ws, 'message']]);
      ws.send(JSON.stringify({ event: 'dtmf', sequenceNumber: '2', streamSid: 'MZex', dtmf: { track: 'inbound_track', digit: '5' } }));
      await waitFor(
        () => {
          const clear = events.findIndex((e) => e.event === 'clear');
          return clear >= 0 && events.slice(clear).some((e) => e.event === 'media');
        },
        'the answer after the clear',
        [[ws, 'message']],
      );
      expect(run.out()).toContain('call CAex started');
      const first = Buffer.from(events.find((e) => e.event === 'media')!.payload!, 'base64');
      expect(first.subarray(0, 4).toString('latin1')).not.toBe('RIFF');
      ws.terminate();
      await waitFor(() => run.out().includes('call ended'), 'the call to end', [[run.child.stdout, 'data']]);
    } finally {
      run.child.kill('SIGTERM');
    }
    const [code, signal] = await run.exited;
    expect(signal).toBeNull(); // it stopped on SIGTERM by closing everything, not by being killed
    expect(code).toBe(0);
  });

  it('the example bridge answers a spoken interruption like a key press, and prints the caller turn', async () => {
    const run = runTs('examples/twilio-bridge.ts', [
      '--port',
      '0',
      '--greeting',
      'Welcome to the test line. Please hold while we connect you.',
    ]);
    try {
      await waitFor(() => /twilio bridge: (ws:\/\/\S+)/.test(run.out()), 'the bridge to listen', [[run.child.stdout, 'data']]);
      const url = /twilio bridge: (ws:\/\/\S+)/.exec(run.out())![1]!;
      const twiml = await fetch(url.replace(/^ws:/, 'http:').replace(/\/media$/, '/twiml'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'CallSid=CAvoice',
      });
      const token = /name="vw_token" value="([A-Za-z0-9_-]+)"/.exec(await twiml.text())![1]!;
      const ws = new WebSocket(url);
      await once(ws, 'open');
      const events: string[] = [];
      ws.on('message', (d: Buffer) => events.push((JSON.parse(d.toString()) as { event: string }).event));
      const send = (m: Record<string, unknown>): void => ws.send(JSON.stringify({ streamSid: 'MZvoice', ...m }));
      send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
      send({
        event: 'start',
        sequenceNumber: '1',
        start: {
          streamSid: 'MZvoice',
          callSid: 'CAvoice',
          accountSid: 'AC',
          tracks: ['inbound'],
          customParameters: { vw_token: token },
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        },
      });
      await waitFor(() => events.filter((e) => e === 'media').length >= 3, 'greeting audio', [[ws, 'message']]);
      // The caller says a 710 ms sentence (a real corpus clip), then 1.5 s of silence: 20 ms frames,
      // timed by their media timestamps (the detector works on the audio's own timeline).
      const FRAME = 160;
      const speech = clip('speech-en-us-male-u2-snr20.ul').mulaw;
      const audio = Buffer.concat([Buffer.from(speech), Buffer.alloc(12_000, 0xff)]);
      for (let i = 0, n = 0; i + FRAME <= audio.length; i += FRAME, n++) {
        send({
          event: 'media',
          sequenceNumber: String(n + 2),
          media: {
            track: 'inbound',
            chunk: String(n + 1),
            timestamp: String(n * 20),
            payload: audio.subarray(i, i + FRAME).toString('base64'),
          },
        });
      }
      await waitFor(
        () => {
          const clear = events.indexOf('clear');
          return clear >= 0 && events.slice(clear).includes('media') && run.out().includes('caller turn ended');
        },
        'the spoken answer after the clear',
        [
          [ws, 'message'],
          [run.child.stdout, 'data'],
        ],
      );
      expect(run.out()).toMatch(/barge-in by voice after "[^"]*" \(\d+ words cut\)/);
      expect(run.out()).toMatch(/caller turn started at \d+(\.\d+)? ms/);
      expect(run.out()).toMatch(/caller turn ended at \d+(\.\d+)? ms \(\d\.\d\d s of audio with pre-roll\)/);
      ws.terminate();
      await waitFor(() => run.out().includes('call ended'), 'the call to end', [[run.child.stdout, 'data']]);
    } finally {
      run.child.kill('SIGTERM');
    }
    const [code, signal] = await run.exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
  });
});
