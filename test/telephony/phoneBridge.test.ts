/**
 * The multi-provider example bridge as a whole process: it serves the provider's answer document
 * with a per-call token, speaks only on a stream that shows that token, and refuses one without.
 */
import { spawn } from 'node:child_process';
import { once, type EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';

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

describe('the phone bridge example', () => {
  it('on Vonage: answers with an NCCO carrying a token, streams binary L16 to a stream that shows it, closes one that does not', async () => {
    const run = runTs('examples/phone-bridge.ts', ['--provider', 'vonage', '--port', '0', '--greeting', 'Welcome to the test line.']);
    try {
      await waitFor(() => /vonage bridge: (ws:\/\/\S+)/.test(run.out()), 'the bridge to listen', [[run.child.stdout, 'data']]);
      const url = /vonage bridge: (ws:\/\/\S+)/.exec(run.out())![1]!;
      const answer = await fetch(url.replace(/^ws:/, 'http:').replace(/\/media$/, '/answer?uuid=U-1'));
      expect(answer.headers.get('content-type')).toBe('application/json');
      const ncco = (await answer.json()) as [
        { action: string; endpoint: [{ uri: string; 'content-type': string; headers: Record<string, string> }] },
      ];
      expect(ncco[0].action).toBe('connect');
      const endpoint = ncco[0].endpoint[0];
      expect(endpoint['content-type']).toBe('audio/l16;rate=16000');
      expect(endpoint.headers['uuid']).toBe('U-1');

      // Without the token: closed, nothing spoken.
      const intruder = new WebSocket(url);
      await once(intruder, 'open');
      let intruderFrames = 0;
      intruder.on('message', () => intruderFrames++);
      const intruderClosed = once(intruder, 'close');
      intruder.send(JSON.stringify({ event: 'websocket:connected', 'content-type': 'audio/l16;rate=16000', uuid: 'U-1' }));
      await intruderClosed;
      expect(intruderFrames).toBe(0);
      await waitFor(() => /refused stream for call U-1: STREAM_TOKEN_MISSING/.test(run.out()), 'the refusal', [[run.child.stdout, 'data']]);

      const ws = new WebSocket(endpoint.uri);
      await once(ws, 'open');
      const frames: Buffer[] = [];
      ws.on('message', (d: Buffer, isBinary: boolean) => {
        if (isBinary) frames.push(d);
      });
      ws.send(JSON.stringify({ event: 'websocket:connected', 'content-type': endpoint['content-type'], ...endpoint.headers }));
      await waitFor(() => frames.length >= 3, 'greeting audio', [[ws, 'message']]);
      expect(frames.every((f) => f.length === 640)).toBe(true); // 20 ms of L16 at 16 kHz
      await waitFor(() => run.out().includes('vonage call U-1 started'), 'the start log', [[run.child.stdout, 'data']]);
      ws.terminate();
      await waitFor(() => run.out().includes('call ended (socketClosed)'), 'the call to end', [[run.child.stdout, 'data']]);
    } finally {
      run.child.kill('SIGTERM');
    }
    const [code, signal] = await run.exited;
    expect(signal).toBeNull();
    expect(code).toBe(0);
  });
});
