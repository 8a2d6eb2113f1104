import { OggSequenceError } from '../../errors.js';

/**
 * Page sequence numbers per logical stream (RFC 3533): each page of a stream carries the next
 * number, so a page lost on the way, sent twice or swapped with its neighbour shows as a number
 * other than the one expected. Without this check a lost page silently shortened the audio by
 * its duration (and every later word was mistimed), and a repeated page was decoded twice.
 *
 * What the reader does with a fault is its business; this only classifies pages:
 * - `ok`: the expected number, or the first page seen of a stream (joined mid-stream);
 * - `gap`: a later number: pages were lost in between;
 * - `repeat`: an earlier number (a page seen again, or one arriving after its successor).
 * A BOS page starts a new logical stream, whose numbers restart (a chained stream is no gap),
 * unless it repeats the BOS page of a stream that is still going (no EOS page yet).
 */

const TWO_POW_31 = 0x8000_0000;
/**
 * Streams remembered at once. A physical stream interleaves a handful (multiplexing) and a
 * chain ends one before the next begins; the oldest beyond this is forgotten, so a long chain
 * cannot grow the map. A forgotten stream's next page is then taken as a first page.
 */
const MAX_TRACKED_STREAMS = 16;

export type OggSequenceVerdict = 'ok' | 'gap' | 'repeat';

interface StreamSequence {
  /** The sequence number the stream's next page should have. */
  next: number;
  /** Its EOS page was seen: a BOS page with its serial starts a new link. */
  ended: boolean;
  /** A gap was found and no packet of the stream was delivered since. */
  afterGap: boolean;
}

export class OggSequenceCheck {
  private readonly streams = new Map<number, StreamSequence>();
  /** The expected number of the last `check` that did not return `ok`. */
  private expected = 0;
  /** Streams with `afterGap` set: while 0, {@link takeGap} is not even a map lookup. */
  private gapsPending = 0;

  /**
   * Classifies the page and moves the stream on: after a `gap` the next page expected is the
   * one after this page; a `repeat` changes nothing (the page is not to be used).
   */
  check(serial: number, sequence: number, bos: boolean, eos: boolean): OggSequenceVerdict {
    let stream = this.streams.get(serial);
    if (stream === undefined) {
      if (this.streams.size >= MAX_TRACKED_STREAMS) this.forgetOldest();
      stream = { next: 0, ended: false, afterGap: false };
      this.streams.set(serial, stream);
    } else {
      const ahead = (sequence - stream.next) >>> 0;
      // A BOS page after the stream's EOS, or one that does not go back, begins a new link.
      const newLink = bos && (stream.ended || ahead < TWO_POW_31);
      if (newLink) this.clearGap(stream);
      else if (ahead !== 0) {
        this.expected = stream.next;
        if (ahead >= TWO_POW_31) return 'repeat';
        this.advance(stream, sequence, eos);
        if (!stream.afterGap) this.gapsPending++;
        stream.afterGap = true;
        return 'gap';
      }
    }
    this.advance(stream, sequence, eos);
    return 'ok';
  }

  /** True once for the first packet delivered of `serial` after a gap in it. */
  takeGap(serial: number): boolean {
    if (this.gapsPending === 0) return false;
    const stream = this.streams.get(serial);
    if (stream === undefined || !stream.afterGap) return false;
    this.clearGap(stream);
    return true;
  }

  /** The typed fault for the page `check` just classified as `gap` or `repeat`. */
  fault(verdict: 'gap' | 'repeat', serial: number, sequence: number, pageOffset: number, fatal: boolean): OggSequenceError {
    const expected = this.expected;
    const missingPages = verdict === 'gap' ? (sequence - expected) >>> 0 : 0;
    const what =
      verdict === 'gap'
        ? `${missingPages} page${missingPages === 1 ? '' : 's'} missing before it`
        : 'a page seen before or out of order; not used';
    return new OggSequenceError(
      `Ogg page ${sequence} of stream ${serial} at byte ${pageOffset}, expected page ${expected}: ${what}`,
      { serial, expectedSequence: expected, foundSequence: sequence, kind: verdict, missingPages },
      { byteOffset: pageOffset, fatal },
    );
  }

  private advance(stream: StreamSequence, sequence: number, eos: boolean): void {
    stream.next = (sequence + 1) >>> 0;
    stream.ended = eos;
  }

  private clearGap(stream: StreamSequence): void {
    if (!stream.afterGap) return;
    stream.afterGap = false;
    this.gapsPending--;
  }

  private forgetOldest(): void {
    const [serial, stream] = this.streams.entries().next().value as [number, StreamSequence];
    this.clearGap(stream);
    this.streams.delete(serial);
  }

  reset(): void {
    this.streams.clear();
    this.gapsPending = 0;
  }
}
