import { run } from '../bench/service.bench.ts';
const t = performance.now();
const r = await run({ quick: true });
console.log(r.length, ((performance.now() - t)/1000).toFixed(1), 's');
