import { run } from '../bench/service.bench.ts';
console.log(JSON.stringify(await run({ quick: false }), null, 1));
