import { startLocalService } from '../src/service/index.ts';
const svc = await startLocalService();
const r = await fetch(`${svc.baseUrl}/v1/agent/agents`, { method: 'POST', headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'A', description: '', config: { prompt: { system_prompt: 'hi' }, voice: { voice_id: 'default', speaking_language: 'en' } } }) });
console.log(r.status, (await r.text()).slice(0, 120));
await svc.close();
