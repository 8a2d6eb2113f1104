import { startLocalService } from '../src/service/index.ts';
const svc = await startLocalService();
function db(a: Uint8Array) { const s = new Int16Array(a.buffer.slice(a.byteOffset, a.byteOffset+a.length)); const block=160; let sum=0,n=0; for (let i=0;i+block<=s.length;i+=block){let b=0; for(let j=i;j<i+block;j++) b+=(s[j]/32768)**2; if (b/block>10**(-4.5)){sum+=b;n+=block;}} let pk=0; for (const x of s) pk=Math.max(pk,Math.abs(x)); return (10*Math.log10(sum/n)).toFixed(1)+' peak '+(20*Math.log10(pk/32768)).toFixed(1); }
for (const v of ['default','en-us-female','en-us-klatt','en-gb']) for (const norm of [false,true]) {
  const res = await fetch(`${svc.baseUrl}/v1/tts/stream/with-timestamp`, { method: 'POST', headers: { authorization: `Bearer ${svc.token}` }, body: JSON.stringify({ text: 'Every voice at one level. This is a longer sentence to settle the gain.', format: 'pcm', sample_rate: 16000, reference_id: v, prosody: { normalize_loudness: norm } }) });
  const t = await res.text(); const a = Buffer.concat(t.split('\n\n').filter(Boolean).map(b => Buffer.from(JSON.parse(b.slice(6)).audio_base64, 'base64')));
  console.log(v, norm, db(a));
}
await svc.close();
