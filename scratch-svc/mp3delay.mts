import { Mp3StreamEncoder } from '/work/main/src/service/encode/Mp3StreamEncoder.ts';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { MPEGDecoder } from 'mpg123-decoder';
for (const [rate, kbps] of [[44100,128],[16000,64],[8000,64],[48000,192],[22050,192]] as const) {
  const n = rate * 2;
  const pcm = new Int16Array(n);
  const at = Math.round(rate * 0.5);
  for (let i = 0; i < 64; i++) pcm[at + i] = Math.round(20000 * Math.sin(i / 64 * Math.PI) * (i % 2 ? 1 : -1));
  const enc = new Mp3StreamEncoder(rate, kbps);
  const parts = [...enc.start(), ...enc.encode(pcm), ...enc.finish()];
  const buf = Buffer.concat(parts);
  writeFileSync('/tmp/svc/d.mp3', buf);
  const raw = execFileSync('ffmpeg', ['-v','error','-i','/tmp/svc/d.mp3','-f','s16le','-ac','1','-']);
  const out = new Int16Array(raw.buffer, raw.byteOffset, raw.length/2);
  let best = 0, bi = 0; for (let i = 0; i < out.length; i++) if (Math.abs(out[i]) > best) { best = Math.abs(out[i]); bi = i; }
  const dec = new MPEGDecoder(); await dec.ready;
  const r = dec.decode(new Uint8Array(buf));
  const ch = r.channelData[0]; let b2=0, bi2=0; for (let i=0;i<ch.length;i++) if (Math.abs(ch[i])>b2){b2=Math.abs(ch[i]); bi2=i;}
  console.log(rate, kbps, 'enc kbps', enc.kbps, 'ffmpeg peak at', bi, 'expected ~', at+32, 'ffmpeg samples', out.length, 'in', n, '| mpg123 peak', bi2, 'samples', ch.length);
  dec.free();
}
