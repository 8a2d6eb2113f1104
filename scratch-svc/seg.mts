import { startLocalService } from '../src/service/index.ts';
const svc = await startLocalService();
for (const h of [{}, {'x-voicewire-fault':'segment-bytes=5'}, {}]) {
  const res = await fetch(`${svc.baseUrl}/v1/tts/stream/with-timestamp`, { method: 'POST', headers: { authorization: `Bearer ${svc.token}`, ...h }, body: JSON.stringify({ text: 'Tiny.', format: 'pcm', sample_rate: 8000 }) });
  const t = await res.text();
  console.log(t.split('\n\n').filter(Boolean).map(b => { const e = JSON.parse(b.slice(6)); return `${e.audio_base64.length}:${JSON.stringify(e.alignment)}`; }).join(' | '));
}
await svc.close();
