import { OggPageWriter } from '../src/service/encode/OggPageWriter.ts';
import { oggCrcUpdate } from '../src/internal/oggCrc.ts';
const w = new OggPageWriter(0x1234);
const out = [...w.push(new Uint8Array(3), 960n), ...w.flush(), ...w.flush(true)];
for (const p of out) { const c = p.slice(); const v = new DataView(c.buffer); const crc = v.getUint32(22, true); c.fill(0,22,26); console.log(p.length, crc, oggCrcUpdate(0, c), v.getUint32(14,true)); }
