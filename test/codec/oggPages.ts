/**
 * Test helpers that take an Ogg file apart into its pages and put it back together with pages
 * lost, repeated or swapped, as a broken transport would. The pages themselves are untouched
 * (their CRCs stay valid): only their order changes.
 */

/** The pages of an Ogg file, in order (views of `b`). */
export function oggPages(b: Uint8Array): Uint8Array[] {
  const pages: Uint8Array[] = [];
  for (let p = 0; p < b.length;) {
    const segments = b[p + 26]!;
    let length = 27 + segments;
    for (let s = 0; s < segments; s++) length += b[p + 27 + s]!;
    pages.push(b.subarray(p, p + length));
    p += length;
  }
  return pages;
}

/** Start offsets of the pages of an Ogg file. */
export function pageOffsets(b: Uint8Array): number[] {
  const offsets: number[] = [];
  let at = 0;
  for (const page of oggPages(b)) {
    offsets.push(at);
    at += page.length;
  }
  return offsets;
}

/** The file rebuilt from its pages in the order `order` gives (indices into its pages). */
export function reorderPages(b: Uint8Array, order: readonly number[]): Uint8Array {
  const pages = oggPages(b);
  return new Uint8Array(Buffer.concat(order.map((i) => pages[i]!)));
}

const indices = (b: Uint8Array): number[] => oggPages(b).map((_, i) => i);

/** The file without page `i`. */
export const dropPage = (b: Uint8Array, i: number): Uint8Array =>
  reorderPages(
    b,
    indices(b).filter((k) => k !== i),
  );

/** The file with page `i` sent twice in a row. */
export const repeatPage = (b: Uint8Array, i: number): Uint8Array =>
  reorderPages(
    b,
    indices(b).flatMap((k) => (k === i ? [k, k] : [k])),
  );

/** The file with pages `i` and `i + 1` swapped. */
export const swapPages = (b: Uint8Array, i: number): Uint8Array =>
  reorderPages(
    b,
    indices(b).map((k) => (k === i ? i + 1 : k === i + 1 ? i : k)),
  );

/** Sequence number and serial of a page. */
export const pageSequence = (page: Uint8Array): number => Buffer.from(page.buffer, page.byteOffset, page.length).readUInt32LE(18);
export const pageSerial = (page: Uint8Array): number => Buffer.from(page.buffer, page.byteOffset, page.length).readUInt32LE(14);
