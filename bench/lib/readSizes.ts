/**
 * The read sizes a client meets when it reads a speech stream's body, and the slicing of a whole
 * captured body into such reads (views, made once before timing, so the timed loop only feeds).
 */

/** A TCP segment's payload on a 1500-byte MTU link: what a socket read returns for a live stream. */
export const TCP_SEGMENT_BYTES = 1460;
/** undici's body chunks for a response that arrived faster than it was read: 16–64 KiB. */
export const UNDICI_MIN_BYTES = 16 * 1024;
export const UNDICI_MAX_BYTES = 64 * 1024;

export interface ReadPlan {
  /** For scenario names: '1460 B reads'. */
  label: string;
  /** Size of the next read (called once per read, in order). */
  next(): number;
}

/** A small seeded PRNG (mulberry32): the same reads on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

export function fixedReads(bytes: number): ReadPlan {
  return { label: `${bytes} B reads`, next: () => bytes };
}

/** Uniform random read sizes in [min, max], seeded. */
export function randomReads(min: number, max: number, seed = 0x5eed, label = `${min}–${max} B reads`): ReadPlan {
  const rnd = seededRandom(seed);
  return { label, next: () => min + Math.floor(rnd() * (max - min + 1)) };
}

export const tcpReads = (): ReadPlan => fixedReads(TCP_SEGMENT_BYTES);
export const undiciReads = (): ReadPlan => randomReads(UNDICI_MIN_BYTES, UNDICI_MAX_BYTES, 0x0d1c1, '16–64 KiB reads');

/** `body` cut into consecutive views of the plan's sizes. */
export function sliceReads(body: Buffer, plan: ReadPlan): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < body.length;) {
    const n = Math.max(1, plan.next());
    out.push(body.subarray(at, Math.min(body.length, at + n)));
    at += n;
  }
  return out;
}
