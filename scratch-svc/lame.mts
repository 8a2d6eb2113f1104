import { Mp3Encoder } from '@breezystack/lamejs';
const pcm = new Int16Array(44100); for (let i=0;i<pcm.length;i++) pcm[i]=Math.round(5000*Math.sin(i/7));
const enc = new Mp3Encoder(1, 44100, 128);
for (let k=0;k<5;k++){ const t=performance.now(); enc.encodeBuffer(pcm); console.log('1s whole', (performance.now()-t).toFixed(1)); }
for (let k=0;k<3;k++){ const t=performance.now(); for (let i=0;i<pcm.length;i+=1152) enc.encodeBuffer(pcm.subarray(i,i+1152)); console.log('1s in 1152 blocks', (performance.now()-t).toFixed(1)); }
let t=performance.now(); const e2 = new Mp3Encoder(1, 44100, 128); console.log('ctor', (performance.now()-t).toFixed(1));
t=performance.now(); e2.flush(); console.log('flush', (performance.now()-t).toFixed(1));
