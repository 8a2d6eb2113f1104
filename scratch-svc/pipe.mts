import { startLocalService } from '../src/service/index.ts';
import { createSpeechPipeline } from '../src/engine/SpeechPipeline.ts';
const svc = await startLocalService();
for (const [format, sample_rate] of [['pcm',16000],['wav',24000],['mp3',44100],['opus',48000],['opus',16000]] as const) {
  const res = await fetch(`${svc.baseUrl}/v1/tts/stream/with-timestamp`, { method: 'POST', headers: { authorization: `Bearer ${svc.token}` }, body: JSON.stringify({ text: 'Hello world, this is 42 cats. The second sentence follows here!', format, sample_rate }) });
  const p = createSpeechPipeline({ format, sampleRate: sample_rate });
  const words: any[] = []; let samples = 0; let summary: any;
  p.on('word', (w) => words.push(w)); p.on('summary', (s) => summary = s); p.on('warning', (w) => console.log('warn', w.message));
  p.on('data', (f) => { samples += f.sampleCount; });
  const done = new Promise((r, j) => { p.on('end', r); p.on('error', j); });
  for await (const chunk of res.body!) p.write(chunk);
  p.end();
  try { await done; } catch (e) { console.log('ERR', e); }
  console.log(format, sample_rate, 'frames samples', samples, summary && JSON.stringify(summary), words.map(w => `${w.text}@${w.start.toFixed(2)}`).join(' '));
}
await svc.close();
