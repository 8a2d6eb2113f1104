import { Mp3StreamEncoder } from '../src/service/encode/Mp3StreamEncoder.ts';
import { OggOpusStreamEncoder } from '../src/service/encode/OggOpusStreamEncoder.ts';
const pcm = new Int16Array(4410); for (let i=0;i<pcm.length;i++) pcm[i]=Math.round(5000*Math.sin(i/7));
for (let k=0;k<3;k++){
let t=performance.now(); const m = new Mp3StreamEncoder(44100,128); const a=performance.now()-t; m.start(); t=performance.now(); m.encode(pcm); const b=performance.now()-t; t=performance.now(); m.finish(); const c=performance.now()-t;
console.log('mp3 ctor', a.toFixed(1), 'encode 100ms', b.toFixed(1), 'finish', c.toFixed(1));
t=performance.now(); const o = new OggOpusStreamEncoder(48000,-1000); const d=performance.now()-t; o.start(); const p48=new Int16Array(4800); t=performance.now(); o.encode(p48); const e=performance.now()-t; t=performance.now(); o.finish(); console.log('opus ctor', d.toFixed(1), 'encode', e.toFixed(1), 'finish', (performance.now()-t).toFixed(1), o.backend);
}
