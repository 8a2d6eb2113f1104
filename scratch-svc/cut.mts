import { startLocalService } from '../src/service/index.ts';
import { createClient } from '../src/client/index.ts';
const svc = await startLocalService();
const client = createClient({ baseUrl: svc.baseUrl, apiKey: svc.token, sleep: async () => undefined });
for (const f of ['cut-after=3', 'cut-inside=2', 'malformed=1', 'malformed=1, malformed-kind=base64', 'malformed=1, malformed-kind=field', 'stall-after=1:500']) {
  try {
    const { stream } = await client.tts.streamWithTimestamps({ text: 'One two three four five six.', format: 'pcm', sample_rate: 8000 }, { headers: { 'x-voicewire-fault': f }, idleTimeoutMs: 5000 });
    let n = 0; for await (const fr of stream) n += fr.sampleCount;
    console.log(f, 'no error', n);
  } catch (e: any) { console.log(f, '→', e.constructor.name, e.code, e.eventIndex ?? '', e.message.slice(0, 90)); }
}
await svc.close();
