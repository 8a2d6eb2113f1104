/**
 * The unsigned 32-bit range, named once: container headers (RIFF sizes, Ogg serials and granule
 * halves) are little-endian u32 fields, and their "all bits set" value often means something.
 */

/** The largest u32, all 32 bits set. */
export const U32_MAX = 0xffffffff;
/** 2^32: the weight of the high word of a 64-bit value read as two u32 halves. */
export const U32_RANGE = 0x1_0000_0000;
