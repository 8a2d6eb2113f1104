/**
 * The process's pool of wasm pages for {@link Base64Stage}: one page (a slot) per event being
 * staged, leased per event, shared by every scanner of the process. Pages are grown on demand up
 * to {@link MAX_SLOTS}, never per event, never shrunk (wasm memory cannot shrink). With every slot
 * busy the least recently leased one is taken back: its owner is told to {@link SlotOwner.evict}
 * (it gives its characters back to its framer and goes on on the plain path), so nothing is lost.
 */
import { growSimdMemory, WASM_PAGE_BYTES } from './simdBase64.js';

/** Slots in the process (each one wasm page): concurrent streams beyond this take turns. */
export const MAX_SLOTS = 32;

/** Who holds a slot: told to give it up when the pool takes it back. */
export interface SlotOwner {
  evict(): void;
}

export interface Slot {
  /** The page's offset in wasm memory. */
  readonly base: number;
  /** Weak: a stream dropped in the middle of an event must not keep its scanner (and ring)
   * alive through the pool; a collected owner's slot is simply free. */
  owner: WeakRef<SlotOwner> | null;
  lastUse: number;
}

const slots: Slot[] = [];
let useClock = 0;

/**
 * A slot for `owner` (its own weak reference, made once, so that a lease allocates nothing): a
 * free one, a new page while there are fewer than {@link MAX_SLOTS}, else the least recently
 * leased one, evicted. Null only when wasm memory cannot grow and no slot exists yet.
 */
export function leaseSlot(owner: WeakRef<SlotOwner>): Slot | null {
  let lru: Slot | null = null;
  for (const s of slots) {
    if (s.owner === null || s.owner.deref() === undefined) {
      s.owner = null;
      lru = s;
      break;
    }
    if (lru === null || s.lastUse < lru.lastUse) lru = s;
  }
  if (lru === null || (lru.owner !== null && slots.length < MAX_SLOTS)) {
    try {
      const slot: Slot = { base: growSimdMemory(1) * WASM_PAGE_BYTES, owner: null, lastUse: 0 };
      slots.push(slot);
      lru = slot;
    } catch {
      if (lru === null) return null;
    }
  }
  lru.owner?.deref()?.evict();
  lru.owner = owner;
  lru.lastUse = ++useClock;
  return lru;
}
