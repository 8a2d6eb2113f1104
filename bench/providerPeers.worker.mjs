// Phones for bench/telephony.bench.ts, one provider at a time, in a worker thread so that their
// work does not run on the bridge's event loop. Each speaks its provider's wire protocol (start,
// media in its format, acknowledgements), plays media in real time and answers each
// acknowledgement request when the audio before it has played (as the test peers in
// test/telephony/helpers/peers/ do, without their checks). Phone i connects `openAtMs[i]` after
// the worker starts (the bench draws these times: seeded, the same for every provider). The bench
// asks for this thread's CPU and event-loop use over its steady window ('window' …
// 'windowEnd'), so it can tell the peers' cost from the bridge's, and 'ready' carries this
// thread's id for the bench's per-thread figures.
// With `caller` (Twilio only): each phone also sends its caller's audio, 20 ms inbound media
// frames on its own absolute schedule from when it connected, phone i starting at frame
// `caller.startFrame[i]` of the caller track (pre-encoded base64 frames, looped): the bench draws
// the track and the starting frames from a seed.
// Per message the phones do only what playing needs (bench/lib/peerWire.mjs): a media message's
// audio length is read from its bytes (no UTF-8 check or decode, no JSON.parse, no base64 decode);
// acknowledgements and inbound frames are written from templates made once per phone, byte for
// byte what JSON.stringify writes. Acknowledgement requests and clears are parsed in full.
// The thread runs under SCHED_IDLE (`phones: 'idle'`, the bench's default; bench/lib/threadPolicy.mjs):
// the phones stand for peers across the network, whose CPU is not the bridge machine's, so this
// thread must not take a CPU from the bridge's threads (bench/README.md, the telephony module).
// `phones: 'normal'` leaves it at the process's policy (bench/schedWaitProbe.ts pairs the two).
// Over the window it records how late its timers fire (acknowledgements held until their audio
// has played, the callers' frames): the sign that it falls behind.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { LagHistogram } from './lib/lagHistogram.mjs';
import { eventTag, mediaPayloadBytes, stringTemplate, twilioInbound } from './lib/peerWire.mjs';
import { idleThisThread, normalThisThread, readThreadPolicy } from './lib/threadPolicy.mjs';

const { url, count, provider, openAtMs, caller, phones = 'idle' } = workerData;
const FRAME_MS = 20;
/** Set before any phone opens (nothing this thread does later runs at the normal policy). */
const policy = phones === 'normal' ? normalThisThread() : idleThisThread();
/** How late this thread's timers fire (reset when the bench's window opens). */
const timerLag = new LagHistogram();
/** Lateness counted against the bench's target and a frame. */
const LAG_MARKS_MS = [5, 20];

/** Per provider: line bytes per ms, the opening messages, and how to read and answer the app. */
const PROVIDERS = {
  twilio: {
    bytesPerMs: 8, // μ-law 8 kHz
    mediaEvent: 'media',
    open: (i) => [
      { event: 'connected', protocol: 'Call', version: '1.0.0' },
      {
        event: 'start',
        sequenceNumber: '1',
        streamSid: `MZbench${i}`,
        start: {
          streamSid: `MZbench${i}`,
          callSid: `CAbench${i}`,
          accountSid: 'AC',
          tracks: ['inbound'],
          customParameters: {},
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        },
      },
    ],
    read(m) {
      if (m.event === 'media') return { media: Buffer.byteLength(m.media.payload, 'base64') };
      if (m.event === 'mark') return { ack: m.mark.name };
      if (m.event === 'clear') return { clear: true };
      return {};
    },
    answer: (i, name) => ({ event: 'mark', sequenceNumber: '0', streamSid: `MZbench${i}`, mark: { name } }),
    // The caller's frame as JSON.stringify writes { event: 'media', sequenceNumber: String(chunk + 1),
    // streamSid, media: { track: 'inbound', chunk: String(chunk), timestamp: String((chunk - 1) * 20), payload } }.
    inbound: (i, chunk, payload) => twilioInbound(`MZbench${i}`, chunk, payload, FRAME_MS),
  },
  telnyx: {
    bytesPerMs: 8, // PCMA 8 kHz
    mediaEvent: 'media',
    open: (i) => [
      { event: 'connected', version: '1.0.0' },
      {
        event: 'start',
        sequence_number: '1',
        stream_id: `st-bench-${i}`,
        start: {
          call_control_id: `v2:bench${i}`,
          custom_parameters: {},
          media_format: { encoding: 'PCMA', sample_rate: 8000, channels: 1 },
        },
      },
    ],
    read(m) {
      if (m.event === 'media') return { media: Buffer.byteLength(m.media.payload, 'base64') };
      if (m.event === 'mark') return { ack: m.mark.name };
      if (m.event === 'clear') return { clear: true };
      return {};
    },
    answer: (i, name) => ({ event: 'mark', sequence_number: '0', stream_id: `st-bench-${i}`, mark: { name } }),
  },
  plivo: {
    bytesPerMs: 32, // L16 16 kHz
    mediaEvent: 'playAudio',
    open: (i) => [
      {
        event: 'start',
        sequenceNumber: 1,
        start: {
          callId: `call-bench-${i}`,
          streamId: `stream-bench-${i}`,
          tracks: ['inbound'],
          mediaFormat: { encoding: 'audio/x-l16', sampleRate: 16000 },
        },
        extra_headers: '',
      },
    ],
    read(m) {
      if (m.event === 'playAudio') return { media: Buffer.byteLength(m.media.payload, 'base64') };
      if (m.event === 'checkpoint') return { ack: m.name };
      if (m.event === 'clearAudio') return { clear: true };
      return {};
    },
    answer: (i, name) => ({ event: 'playedStream', sequenceNumber: 0, streamId: `stream-bench-${i}`, name }),
  },
  vonage: {
    bytesPerMs: 32, // L16 16 kHz, binary frames
    open: () => [{ event: 'websocket:connected', 'content-type': 'audio/l16;rate=16000' }],
    read(m) {
      if (m.action === 'notify') return { ack: m.payload.name };
      if (m.action === 'clear') return { clear: true };
      return {};
    },
    answer: (_i, name) => ({ event: 'websocket:notify', payload: { name } }),
  },
  exotel: {
    bytesPerMs: 16, // L16 8 kHz
    mediaEvent: 'media',
    open: (i) => [
      { event: 'connected' },
      {
        event: 'start',
        sequence_number: '1',
        stream_sid: `ex-bench-${i}`,
        start: {
          stream_sid: `ex-bench-${i}`,
          call_sid: `CAbench${i}`,
          custom_parameters: {},
          media_format: { encoding: 'audio/x-raw', sample_rate: '8000', bit_rate: '16' },
        },
      },
    ],
    read(m) {
      if (m.event === 'media') return { media: Buffer.byteLength(m.media.payload, 'base64') };
      if (m.event === 'mark') return { ack: m.mark.name };
      if (m.event === 'clear') return { clear: true };
      return {};
    },
    answer: (i, name) => ({ event: 'mark', sequence_number: '0', stream_sid: `ex-bench-${i}`, mark: { name } }),
  },
};

const p = PROVIDERS[provider];
/** The `"event":"…"` bytes of the provider's JSON media messages (none for Vonage: its media is binary). */
const mediaTag = p.mediaEvent === undefined ? null : eventTag(p.mediaEvent);
if (caller !== undefined && p.inbound === undefined) throw new Error(`bench phones: no caller audio for ${provider}`);
const peers = [];
let opened = 0;
let failed = 0;
const settled = () => {
  if (opened + failed === count) parentPort.postMessage({ type: 'ready', opened, failed, tid: ownThreadId(), policy });
};
let mediaBytes = 0;
let underruns = 0;

/** Opens phone `i`: its connection, its playback clock and its answers. */
function openPhone(i) {
  const ws = new WebSocket(`${url}?phone=${i}`, { skipUTF8Validation: true }); // the bench matches calls to phones by this
  const peer = { ws, busyUntil: 0, started: false, timers: new Set(), underruns: 0, mic: null };
  const answer = stringTemplate((name) => p.answer(i, name)); // JSON.stringify(p.answer(i, name)), byte for byte
  peer.index = i;
  peers.push(peer);
  const played = (bytes) => {
    const now = performance.now();
    mediaBytes += bytes;
    if (peer.started && peer.busyUntil < now) {
      underruns++;
      peer.underruns++;
    }
    peer.started = true;
    peer.busyUntil = Math.max(peer.busyUntil, now) + bytes / p.bytesPerMs;
  };
  ws.on('open', () => {
    peer.counted = true;
    for (const m of p.open(i)) ws.send(JSON.stringify(m));
    opened++;
    if (caller !== undefined) speak(peer, i);
    settled();
  });
  ws.on('message', (data, isBinary) => {
    if (isBinary) {
      played(data.length);
      return;
    }
    const bytes = mediaTag === null ? null : mediaPayloadBytes(data, mediaTag);
    if (bytes !== null) {
      played(bytes);
      return;
    }
    const r = p.read(JSON.parse(data.toString()));
    const now = performance.now();
    if (r.media !== undefined) played(r.media);
    else if (r.ack !== undefined) {
      const echo = () => ws.readyState === ws.OPEN && ws.send(answer(r.ack));
      const wait = peer.busyUntil - now;
      if (wait <= 0) echo();
      else {
        const due = now + wait;
        const t = setTimeout(() => {
          timerLag.record(performance.now() - due);
          peer.timers.delete(t);
          echo();
        }, wait);
        peer.timers.add(t);
      }
    } else if (r.clear) {
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

/** Phone i's caller: a 20 ms inbound frame every 20 ms on an absolute schedule, until 'stop'. */
function speak(peer, i) {
  const frames = caller.frames;
  let k = 0;
  const t0 = performance.now();
  const tick = () => {
    if (peer.ws.readyState !== peer.ws.OPEN) return;
    timerLag.record(performance.now() - (t0 + (k + 1) * FRAME_MS));
    const payload = frames[(caller.startFrame[i] + k) % frames.length];
    k++;
    peer.ws.send(p.inbound(i, k, payload));
    peer.mic = setTimeout(tick, Math.max(0, t0 + (k + 1) * FRAME_MS - performance.now()));
  };
  peer.mic = setTimeout(tick, FRAME_MS);
}

const opening = new Set();
const t0 = performance.now();
for (let i = 0; i < count; i++) {
  const at = openAtMs[i];
  const t = setTimeout(
    () => {
      opening.delete(t);
      openPhone(i);
    },
    Math.max(0, t0 + at - performance.now()),
  );
  opening.add(t);
}

/** This thread's CPU ms so far (Linux `/proc/thread-self/schedstat`; elsewhere the process's). */
function threadCpuMs() {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ', 1)[0]) / 1e6;
  } catch {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  }
}
/**
 * This thread's id (Linux `/proc/thread-self/stat`; NaN elsewhere), so that the bench can tell
 * this thread's CPU from the other threads' in its per-thread figures (bench/lib/threadStats.ts).
 */
function ownThreadId() {
  try {
    return Number(readFileSync('/proc/thread-self/stat', 'latin1').split(' ', 1)[0]);
  } catch {
    return NaN;
  }
}
/** Event-loop use since the bench opened its measuring window. */
let elu0 = performance.eventLoopUtilization();

parentPort.on('message', (msg) => {
  if (msg === 'window') {
    elu0 = performance.eventLoopUtilization();
    timerLag.reset();
    parentPort.postMessage({ type: 'window', cpuMs: threadCpuMs() });
  } else if (msg === 'windowEnd') {
    const busy = performance.eventLoopUtilization(elu0).utilization;
    const lag = {
      count: timerLag.count,
      p99Ms: timerLag.quantile(0.99),
      maxMs: timerLag.maxMs,
      over: LAG_MARKS_MS.map((ms) => [ms, timerLag.over(ms)]),
    };
    const policyAtEnd = policy.tid === null ? null : readThreadPolicy(policy.pid, policy.tid);
    parentPort.postMessage({ type: 'windowEnd', cpuMs: threadCpuMs(), busy, lag, policyAtEnd });
  } else if (msg === 'stop') {
    for (const t of opening) clearTimeout(t);
    for (const peer of peers) {
      for (const t of peer.timers) clearTimeout(t);
      clearTimeout(peer.mic);
      peer.ws.terminate();
    }
    // Per phone, in the order of the phones' indices (the bench matches them to its calls).
    const byPhone = new Array(count).fill(0);
    for (const peer of peers) byPhone[peer.index] = peer.underruns;
    parentPort.postMessage({ type: 'stats', mediaBytes, underruns, underrunsByPhone: byPhone });
    parentPort.close();
  }
});
