import { startLocalService } from '../src/service/index.ts';
import { writeFileSync } from 'node:fs';
const svc = await startLocalService();
for (const [format, rate, ext] of [['wav',22050,'wav'],['mp3',44100,'mp3'],['mp3',8000,'mp3'],['opus',48000,'ogg'],['opus',16000,'ogg']] as const) {
  const res = await fetch(`${svc.baseUrl}/v1/tts/stream/with-timestamp`, { method: 'POST', headers: { authorization: `Bearer ${svc.token}` }, body: JSON.stringify({ text: 'Standard tools read this stream. Twice over!', format, sample_rate: rate }) });
  const t = await res.text(); const evs = t.split('\n\n').filter(Boolean).map(b => JSON.parse(b.slice(6)));
  const a = Buffer.concat(evs.map(e => Buffer.from(e.audio_base64, 'base64')));
  const last = evs[evs.length-1];
  writeFileSync(`/tmp/svc/f-${rate}.${ext}`, a);
  console.log(format, rate, 'expected sec', (last.chunk_audio_offset_sec + last.alignment.audio_duration).toFixed(4));
}
await svc.close();
