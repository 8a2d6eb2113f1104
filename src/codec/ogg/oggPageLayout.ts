/**
 * The Ogg page header (RFC 3533 §6), in one place for the page reader (codec) and the local
 * service's page writer:
 *
 * ```
 * 0 "OggS" · 4 version · 5 flags · 6 granule (i64) · 14 serial · 18 sequence · 22 CRC · 26 segments
 * 27 lacing values (one per segment) · then the body
 * ```
 */
import { U32_MAX } from '../../internal/u32.js';

/** "OggS" */
export const OGGS_CAPTURE = [0x4f, 0x67, 0x67, 0x53] as const;
export const OGG_HEADER_BYTES = 27;
export const OGG_VERSION = 0;
export const OGG_MAX_SEGMENTS = 255;
/** A lacing value of 255 means the packet goes on in the next segment; less ends it. */
export const OGG_LACING_CONTINUES = 255;
/** The biggest page there can be: header + 255 lacing values + 255 × 255 body bytes. */
export const OGG_MAX_PAGE_BYTES = OGG_HEADER_BYTES + OGG_MAX_SEGMENTS + OGG_MAX_SEGMENTS * OGG_LACING_CONTINUES;
export const OGG_FLAG_CONTINUED = 0x01;
export const OGG_FLAG_BOS = 0x02;
export const OGG_FLAG_EOS = 0x04;
export const OGG_OFFSET_VERSION = 4;
export const OGG_OFFSET_FLAGS = 5;
export const OGG_OFFSET_GRANULE = 6;
export const OGG_OFFSET_SERIAL = 14;
export const OGG_OFFSET_SEQUENCE = 18;
export const OGG_OFFSET_CRC = 22;
export const OGG_OFFSET_SEGMENTS = 26;
export const OGG_CRC_BYTES = 4;
/** Each u32 half of the granule -1 ("no packet ends on this page"). */
export const OGG_NO_GRANULE_HALF = U32_MAX;
