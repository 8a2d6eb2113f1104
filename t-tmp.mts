import { run } from '/work/main/bench/say.bench.ts';
const r = await run({ quick: false });
for (const x of r) console.log(x.scenario, JSON.stringify(x.figures), x.met ?? '');
