// Twilio-like phones for bench/telephony.bench.ts, in a worker thread so that their work does not
// run on the bridge's event loop. Each plays media at 8 kHz in real time and echoes each mark when
// the audio before it has played. With `caller` (μ-law 8 kHz), each phone also sends the caller's
// audio in 20 ms media frames on an absolute schedule, each phone from its own place in the track.
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

const { url, count, caller } = workerData;
const RATE_PER_MS = 8;
const FRAME_MS = 20;
const FRAME_BYTES = FRAME_MS * RATE_PER_MS;
/** Phones start this many samples apart in the caller track (a prime: no two calls in step). */
const CALLER_STAGGER = 7919;
const peers = [];
let opened = 0;
let failed = 0;
const settled = () => {
  if (opened + failed === count) parentPort.postMessage({ type: 'ready', opened, failed });
};
let mediaBytes = 0;
let underruns = 0;

for (let i = 0; i < count; i++) {
  const ws = new WebSocket(url);
  const peer = { ws, busyUntil: 0, started: false, timers: new Set() };
  peers.push(peer);
  ws.on('open', () => {
    peer.counted = true;
    const sid = `MZbench${i}`;
    ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
    ws.send(
      JSON.stringify({
        event: 'start',
        sequenceNumber: '1',
        streamSid: sid,
        start: {
          streamSid: sid,
          callSid: `CAbench${i}`,
          accountSid: 'AC',
          tracks: ['inbound'],
          customParameters: {},
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        },
      }),
    );
    opened++;
    peer.sid = sid;
    peer.callerAt = (i * CALLER_STAGGER) % (caller?.length ?? 1);
    peer.frames = 0;
    settled();
  });
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString());
    const now = performance.now();
    if (m.event === 'media') {
      const bytes = Buffer.byteLength(m.media.payload, 'base64');
      mediaBytes += bytes;
      if (peer.started && peer.busyUntil < now) underruns++;
      peer.started = true;
      peer.busyUntil = Math.max(peer.busyUntil, now) + bytes / RATE_PER_MS;
    } else if (m.event === 'mark') {
      const echo = () =>
        ws.readyState === ws.OPEN && ws.send(JSON.stringify({ event: 'mark', sequenceNumber: '0', streamSid: m.streamSid, mark: m.mark }));
      const wait = peer.busyUntil - now;
      if (wait <= 0) echo();
      else {
        const t = setTimeout(() => {
          peer.timers.delete(t);
          echo();
        }, wait);
        peer.timers.add(t);
      }
    } else if (m.event === 'clear') {
      for (const t of peer.timers) clearTimeout(t);
      peer.timers.clear();
      peer.busyUntil = now;
    }
  });
  ws.on('error', () => {
    if (!peer.counted) {
      peer.counted = true;
      if (ws.readyState !== ws.OPEN) {
        failed++;
        settled();
      }
    }
  });
}

let micTimer = null;
if (caller !== undefined) {
  const track = Buffer.from(caller);
  const frame = Buffer.alloc(FRAME_BYTES);
  let due = performance.now() + FRAME_MS;
  const tick = () => {
    for (const p of peers) {
      if (p.ws.readyState !== p.ws.OPEN || p.sid === undefined) continue;
      for (let k = 0; k < FRAME_BYTES; k++) frame[k] = track[(p.callerAt + k) % track.length];
      p.callerAt = (p.callerAt + FRAME_BYTES) % track.length;
      const chunk = ++p.frames;
      p.ws.send(
        JSON.stringify({
          event: 'media',
          sequenceNumber: String(chunk + 1),
          streamSid: p.sid,
          media: { track: 'inbound', chunk: String(chunk), timestamp: String(chunk * FRAME_MS), payload: frame.toString('base64') },
        }),
      );
    }
    due += FRAME_MS;
    micTimer = setTimeout(tick, Math.max(0, due - performance.now()));
  };
  micTimer = setTimeout(tick, FRAME_MS);
}

parentPort.on('message', (msg) => {
  if (msg === 'stop') {
    if (micTimer !== null) clearTimeout(micTimer);
    for (const p of peers) {
      for (const t of p.timers) clearTimeout(t);
      p.ws.terminate();
    }
    parentPort.postMessage({ type: 'stats', mediaBytes, underruns });
    parentPort.close();
  }
});
