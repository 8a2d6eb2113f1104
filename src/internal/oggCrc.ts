/**
 * CRC-32 as Ogg defines it (RFC 3533): polynomial 0x04c11db7, initial value 0, no reflection,
 * no final xor. Computed over the whole page with the CRC field set to zero.
 *
 * Eight bytes per step ("slicing by 8": table k holds the CRC of a byte followed by k zero bytes).
 * Every Ogg page the engine reads is checked with it, and on 20 ms pages it was most of the page
 * reader's time. Measured on 126-byte pages: 1.0–1.3 ns/byte, against 2.1 with four bytes per
 * step; sixteen per step was no faster. The tables are Int32Array: the values only meet in
 * bitwise operations, so their sign never matters.
 */
const OGG_CRC_POLYNOMIAL = 0x04c11db7;
const BYTE_VALUES = 256;
const BITS_PER_BYTE = 8;
const SLICES = 8;

/** TABLES[k * 256 + i]: the CRC of byte i followed by k zero bytes. */
const TABLES = (() => {
  const t = new Int32Array(BYTE_VALUES * SLICES);
  for (let i = 0; i < BYTE_VALUES; i++) {
    let r = i << 24;
    for (let bit = 0; bit < BITS_PER_BYTE; bit++) {
      r = r & 0x80000000 ? (r << 1) ^ OGG_CRC_POLYNOMIAL : r << 1;
    }
    t[i] = r;
  }
  for (let k = 1; k < SLICES; k++) {
    for (let i = 0; i < BYTE_VALUES; i++) {
      const prev = t[(k - 1) * BYTE_VALUES + i]!;
      t[k * BYTE_VALUES + i] = (prev << 8) ^ t[prev >>> 24]!;
    }
  }
  return t;
})();
const T1 = BYTE_VALUES;
const T2 = 2 * BYTE_VALUES;
const T3 = 3 * BYTE_VALUES;
const T4 = 4 * BYTE_VALUES;
const T5 = 5 * BYTE_VALUES;
const T6 = 6 * BYTE_VALUES;
const T7 = 7 * BYTE_VALUES;

/** Continues a CRC over `bytes[start, end)`. Start a page with `crc = 0`. */
export function oggCrcUpdate(crc: number, bytes: Uint8Array, start = 0, end = bytes.length): number {
  const t = TABLES;
  let c = crc | 0;
  let i = start;
  for (const last = end - SLICES; i <= last; i += SLICES) {
    // The CRC meets the first four bytes; the last four only need their own tables.
    c ^= (bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!;
    c =
      t[T7 + (c >>> 24)]! ^
      t[T6 + ((c >>> 16) & 0xff)]! ^
      t[T5 + ((c >>> 8) & 0xff)]! ^
      t[T4 + (c & 0xff)]! ^
      t[T3 + bytes[i + 4]!]! ^
      t[T2 + bytes[i + 5]!]! ^
      t[T1 + bytes[i + 6]!]! ^
      t[bytes[i + 7]!]!;
  }
  for (; i < end; i++) c = (c << 8) ^ t[((c >>> 24) ^ bytes[i]!) & 0xff]!;
  return c >>> 0;
}

export function oggCrc(bytes: Uint8Array): number {
  return oggCrcUpdate(0, bytes);
}
