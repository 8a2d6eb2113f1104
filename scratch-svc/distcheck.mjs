const { startLocalService } = await import('./dist/service/index.js');
const svc = await startLocalService();
for (const format of ['pcm', 'opus', 'mp3']) {
  const res = await fetch(`${svc.baseUrl}/v1/tts/stream/with-timestamp`, { method: 'POST', headers: { authorization: `Bearer ${svc.token}` }, body: JSON.stringify({ text: 'Built and running.', format }) });
  const t = await res.text(); const evs = t.split('\n\n').filter(Boolean).map(b => JSON.parse(b.slice(6)));
  console.log(format, res.status, evs.length, evs.at(-1).alignment.segments.map(s => s.text).join(' '));
}
await svc.close();
