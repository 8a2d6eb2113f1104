import { RingBuffer } from './src/buffer/RingBuffer.js';
import { SpeechEventScanner } from './src/events/SpeechEventScanner.js';
import { createNaiveStage } from './bench/naive.js';
const audio = Buffer.alloc(6144); for (let i = 0; i < audio.length; i++) audio[i] = (i * 7919) & 255;
const ev = `data: ${JSON.stringify({ audio_base64: audio.toString('base64'), content: 'The quick brown fox jumps over the lazy dog', alignment: null, chunk_seq: 0, chunk_audio_offset_sec: 1.5 })}\n\n`;
const input = Buffer.from(ev.repeat(1000));
const chunks: Buffer[] = []; for (let p = 0, k = 0; p < input.length; k++) { const n = 1 + ((k * 2654435761) >>> 0) % 4000; chunks.push(input.subarray(p, p + n)); p += n; }
const ring = new RingBuffer(1 << 20);
const mode = process.argv[2];
for (let r = 0; r < 40; r++) {
  const t0 = process.hrtime.bigint();
  if (mode === 'naive') { const n = createNaiveStage(); for (const c of chunks) n.feed(c); }
  else {
  const sc = new SpeechEventScanner({ ring, onEvent() {} });
  for (const c of chunks) { let pos = 0; while (pos < c.length) { pos += sc.feed(c, pos); ring.consume(ring.length); } }
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r % 10 === 9) console.log(mode, (input.length / 1e6 / s).toFixed(0), 'MB/s');
}
