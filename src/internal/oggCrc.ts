/**
 * CRC-32 as Ogg defines it (RFC 3533): polynomial 0x04c11db7, initial value 0, no reflection,
 * no final xor. Computed over the whole page with the CRC field set to zero.
 */
const OGG_CRC_POLYNOMIAL = 0x04c11db7;
const BYTE_VALUES = 256;

const TABLE = (() => {
  const table = new Uint32Array(BYTE_VALUES);
  for (let i = 0; i < BYTE_VALUES; i++) {
    let r = i << 24;
    for (let bit = 0; bit < 8; bit++) {
      r = r & 0x80000000 ? (r << 1) ^ OGG_CRC_POLYNOMIAL : r << 1;
    }
    table[i] = r >>> 0;
  }
  return table;
})();

/** Continues a CRC over `bytes[start, end)`. Start a page with `crc = 0`. */
export function oggCrcUpdate(crc: number, bytes: Uint8Array, start = 0, end = bytes.length): number {
  let c = crc >>> 0;
  for (let i = start; i < end; i++) {
    c = ((c << 8) ^ TABLE[((c >>> 24) ^ bytes[i]!) & 0xff]!) >>> 0;
  }
  return c;
}

export function oggCrc(bytes: Uint8Array): number {
  return oggCrcUpdate(0, bytes);
}
