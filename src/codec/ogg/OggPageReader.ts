import { CodecError, InvalidOptionError, type OggSequenceError } from '../../errors.js';
import { oggCrcUpdate } from '../../internal/oggCrc.js';
import { U32_RANGE } from '../../internal/u32.js';
import {
  OGG_CRC_BYTES,
  OGG_FLAG_BOS,
  OGG_FLAG_CONTINUED,
  OGG_FLAG_EOS,
  OGG_HEADER_BYTES,
  OGG_LACING_CONTINUES,
  OGG_MAX_PAGE_BYTES,
  OGG_MAX_SEGMENTS,
  OGG_NO_GRANULE_HALF,
  OGG_OFFSET_CRC,
  OGG_OFFSET_FLAGS,
  OGG_OFFSET_GRANULE,
  OGG_OFFSET_SEGMENTS,
  OGG_OFFSET_SEQUENCE,
  OGG_OFFSET_SERIAL,
  OGG_OFFSET_VERSION,
  OGG_VERSION,
  OGGS_CAPTURE,
} from './oggPageLayout.js';
import { OggSequenceCheck } from './OggSequenceCheck.js';

/**
 * A streaming Ogg page reader (RFC 3533) of our own: prism-media's OggDemuxer drops chained
 * streams, buffers forever on a packet that spans pages and ignores granule positions.
 *
 * Bytes go in by any split; whole packets come out through `onPacket`, in order. A page is only
 * used once all of it is here and its CRC matches, so a bad page never yields packets, and every
 * packet of the pages before it has already been delivered when the typed error is thrown.
 */

const ZERO_CRC = new Uint8Array(OGG_CRC_BYTES);
/** @defaultValue 4 MiB: an OpusTags packet with pictures can be big; audio packets are small. */
export const DEFAULT_MAX_PACKET_BYTES = 4 * 1024 * 1024;

/** Where a packet sits in the stream: everything about it but its bytes. */
export interface OggPacketInfo {
  serial: number;
  /** First packet of a logical stream (its page has the BOS flag). */
  bos: boolean;
  /** Last packet of a logical stream (last packet completed on an EOS page). */
  eos: boolean;
  /**
   * Granule position of the page this packet completes on, or -1 when that page carries none;
   * every packet completed on a page carries it, not only the last one: an end trim (RFC 7845
   * §4.4) may reach back past the page's last packet, so it bounds them all.
   * Safe as a number up to 2^53 (≈ 5 900 years of 48 kHz audio).
   */
  granule: number;
  /** This packet is the last one completed on its page (the granule is exactly its end). */
  lastOnPage: boolean;
  pageSequence: number;
  /** Stream offset of the first byte of the page this packet completes on. */
  pageOffset: number;
  /**
   * The first packet of its stream delivered after a sequence gap (pages lost before it, see
   * {@link OggPageReaderOptions.onSequenceFault}): the audio before it is incomplete.
   */
  afterGap: boolean;
}

export interface OggPacket extends OggPacketInfo {
  /** The packet bytes. A view valid only during the `onPacket` call: copy what you keep. */
  data: Uint8Array;
}

/** A receiver of packets without allocation: see {@link OggPageReaderOptions.packetSink}. */
export interface OggPacketSink {
  push(bytes: Uint8Array, start: number, end: number, info: Readonly<OggPacketInfo>): void;
}

export interface OggPageReaderOptions {
  /** Each packet as an object of its own (a new object and view per packet). */
  onPacket?(packet: OggPacket): void;
  /**
   * Each packet without allocating: its bytes are `bytes[start, end)` and `info` is one object the
   * reader reuses. Both are valid only during the call: copy what you keep. For a consumer that
   * copies packets anyway (OggOpusDecoder's queue), this saves a packet object and a view per
   * packet, which at 50 packets a second per stream is most of the Ogg layer's garbage.
   */
  onPacketBytes?(bytes: Uint8Array, start: number, end: number, info: Readonly<OggPacketInfo>): void;
  /**
   * As `onPacketBytes`, called as `packetSink.push(bytes, start, end, info)`: a method of an
   * object instead of a function of the reader's own. For a consumer that makes many readers (one
   * per stream): a closure made per reader is a new function each time, which optimized code can
   * inline while one stream runs alone and must throw away ("weak objects") when that stream is
   * dropped; a method of one class (OggPacketQueue) is the same function for every reader. No CPU
   * change is claimed for it (native-notes/engine-performance.md, fifteenth pass).
   * Taken before `onPacketBytes` when both are given.
   */
  packetSink?: OggPacketSink;
  /** Called once per verified page used (after its packets; not for a repeated page), e.g. for latency probes. */
  onPage?(info: { serial: number; granule: number; pageOffset: number; pageBytes: number }): void;
  /**
   * A page whose sequence number is not the next one of its logical stream (lost, repeated or
   * swapped pages; see OggSequenceCheck.ts). Without this callback that is a fatal
   * OGG_PAGE_SEQUENCE ({@link OggSequenceError}) thrown like a bad CRC. With it, the fault is handed
   * over (non-fatal) and reading goes on: a page seen before (or late) is dropped unread; the page
   * after a gap is used, but the packet left open before the gap and the continued fragment at the
   * start of this page are dropped (they are not one packet), and the next packet delivered for
   * the stream has `afterGap` set.
   */
  onSequenceFault?(fault: OggSequenceError): void;
  maxPacketBytes?: number;
}

export class OggPageReader {
  private readonly onPacket: OggPageReaderOptions['onPacket'];
  private readonly onPacketBytes: OggPageReaderOptions['onPacketBytes'];
  private readonly packetSink: OggPacketSink | undefined;
  /** The reused `info` of {@link OggPageReaderOptions.onPacketBytes}. */
  private readonly info: OggPacketInfo = {
    serial: 0,
    bos: false,
    eos: false,
    granule: -1,
    lastOnPage: false,
    pageSequence: 0,
    pageOffset: 0,
    afterGap: false,
  };
  private readonly onPage: OggPageReaderOptions['onPage'];
  private readonly onSequenceFault: OggPageReaderOptions['onSequenceFault'];
  private readonly sequences = new OggSequenceCheck();
  private readonly maxPacketBytes: number;
  /**
   * Bytes of a page that arrived split across pushes (only then are page bytes copied). Grown on
   * demand up to {@link OGG_MAX_PAGE_BYTES}, so a reader that never sees a split page stays small.
   */
  private page = new Uint8Array(OGG_HEADER_BYTES + OGG_MAX_SEGMENTS);
  private pageHave = 0;
  /** A packet spanning pages: its fragments, copied into one growing buffer. */
  private partial = new Uint8Array(0);
  private partialLength = 0;
  private partialSerial = -1;
  private hasPartial = false;
  /** Total bytes consumed so far: the offset of the next byte. */
  private offsetValue = 0;
  private failed: CodecError | null = null;

  constructor(options: OggPageReaderOptions) {
    if (options.onPacket === undefined && options.onPacketBytes === undefined && options.packetSink === undefined) {
      throw new InvalidOptionError('onPacket', 'OggPageReader needs onPacket, onPacketBytes or packetSink');
    }
    this.onPacket = options.onPacket;
    this.onPacketBytes = options.onPacketBytes;
    this.packetSink = options.packetSink;
    this.onPage = options.onPage;
    this.onSequenceFault = options.onSequenceFault;
    this.maxPacketBytes = options.maxPacketBytes ?? DEFAULT_MAX_PACKET_BYTES;
  }

  /** Offset in the stream of the next byte `push` will read. */
  get offset(): number {
    return this.offsetValue;
  }

  /**
   * Reads `bytes[start..]`. Throws a fatal CodecError (OGG_BAD_CAPTURE, OGG_BAD_CRC,
   * OGG_BAD_PAGE, and OGG_PAGE_SEQUENCE without `onSequenceFault`) on a bad page, after every
   * packet of the earlier pages was delivered.
   */
  push(bytes: Uint8Array, start = 0): void {
    if (this.failed) throw this.failed;
    let i = start;
    const end = bytes.length;
    while (i < end) {
      if (this.pageHave === 0) {
        // Fast path: a whole page inside this chunk is read in place, without copying.
        const pageLength = completePageLength(bytes, i, end);
        if (pageLength > 0) {
          this.readPage(bytes, i, pageLength, this.offsetValue);
          this.offsetValue += pageLength;
          i += pageLength;
          continue;
        }
      }
      i = this.accumulate(bytes, i, end);
    }
  }

  /** End of input: a page cut short, or a packet left open across pages, is reported. */
  end(): CodecError | null {
    if (this.failed) return null;
    if (this.pageHave > 0) {
      return new CodecError('AUDIO_TRUNCATED', `Ogg stream ends inside a page (${this.pageHave} bytes of it)`, {
        byteOffset: this.offsetValue - this.pageHave,
        fatal: false,
      });
    }
    if (this.hasPartial) {
      return new CodecError('AUDIO_TRUNCATED', 'Ogg stream ends inside a packet that spans pages', {
        byteOffset: this.offsetValue,
        fatal: false,
      });
    }
    return null;
  }

  reset(): void {
    this.pageHave = 0;
    this.partialLength = 0;
    this.hasPartial = false;
    this.partialSerial = -1;
    this.offsetValue = 0;
    this.failed = null;
    this.sequences.reset();
  }

  /** Copies bytes of a page that arrived split; reads it once it is whole. Returns the new index. */
  private accumulate(bytes: Uint8Array, i: number, end: number): number {
    const before = this.pageHave;
    const needed = this.needed();
    if (needed > this.page.length) {
      const grown = new Uint8Array(Math.min(OGG_MAX_PAGE_BYTES, Math.max(needed, this.page.length * 2)));
      grown.set(this.page.subarray(0, before));
      this.page = grown;
    }
    const page = this.page;
    const take = Math.min(needed - before, end - i);
    page.set(bytes.subarray(i, i + take), before);
    this.pageHave += take;
    this.offsetValue += take;
    // Check the capture pattern as soon as its bytes are here, so garbage fails early.
    for (let k = before; k < Math.min(this.pageHave, OGGS_CAPTURE.length); k++) {
      if (page[k] !== OGGS_CAPTURE[k]) this.fail(badCapture(this.offsetValue - this.pageHave));
    }
    const length = this.pageHave;
    if (length >= OGG_HEADER_BYTES && length === this.needed()) {
      this.pageHave = 0;
      this.readPage(page, 0, length, this.offsetValue - length);
    }
    return i + take;
  }

  /** Bytes the split page needs before the next step: header, lacing table, then whole page. */
  private needed(): number {
    if (this.pageHave < OGG_HEADER_BYTES) return OGG_HEADER_BYTES;
    const withLacing = OGG_HEADER_BYTES + this.page[OGG_OFFSET_SEGMENTS]!;
    if (this.pageHave < withLacing) return withLacing;
    return pageLengthFromHeader(this.page, 0);
  }

  private readPage(b: Uint8Array, p: number, length: number, pageOffset: number): void {
    for (let k = 0; k < OGGS_CAPTURE.length; k++) {
      if (b[p + k] !== OGGS_CAPTURE[k]) this.fail(badCapture(pageOffset));
    }
    if (b[p + OGG_OFFSET_VERSION] !== OGG_VERSION) {
      this.fail(
        new CodecError('OGG_BAD_PAGE', `Ogg page version ${b[p + OGG_OFFSET_VERSION]} at byte ${pageOffset}`, { byteOffset: pageOffset }),
      );
    }
    let crc = oggCrcUpdate(0, b, p, p + OGG_OFFSET_CRC);
    crc = oggCrcUpdate(crc, ZERO_CRC);
    crc = oggCrcUpdate(crc, b, p + OGG_OFFSET_CRC + OGG_CRC_BYTES, p + length);
    const stored = readU32(b, p + OGG_OFFSET_CRC);
    if (crc !== stored) {
      this.fail(
        new CodecError('OGG_BAD_CRC', `Ogg page CRC mismatch at byte ${pageOffset} (page ${readU32(b, p + OGG_OFFSET_SEQUENCE)})`, {
          byteOffset: pageOffset,
        }),
      );
    }
    const flags = b[p + OGG_OFFSET_FLAGS]!;
    const serial = readU32(b, p + OGG_OFFSET_SERIAL);
    const sequence = readU32(b, p + OGG_OFFSET_SEQUENCE);
    const granule = readGranule(b, p + OGG_OFFSET_GRANULE);
    const segments = b[p + OGG_OFFSET_SEGMENTS]!;
    const lacing = p + OGG_HEADER_BYTES;
    const verdict = this.sequences.check(serial, sequence, (flags & OGG_FLAG_BOS) !== 0, (flags & OGG_FLAG_EOS) !== 0);
    if (verdict !== 'ok') {
      const onFault = this.onSequenceFault;
      if (onFault === undefined) this.fail(this.sequences.fault(verdict, serial, sequence, pageOffset, true));
      onFault(this.sequences.fault(verdict, serial, sequence, pageOffset, false));
      if (verdict === 'repeat') return; // its packets were delivered (or lost) already
      // A gap: the packet left open before it does not go on in this page.
      if (this.partialSerial === serial) {
        this.hasPartial = false;
        this.partialLength = 0;
      }
    }

    // Which segment index ends the last packet completed on this page?
    let lastEnd = -1;
    for (let s = 0; s < segments; s++) if (b[lacing + s]! < OGG_LACING_CONTINUES) lastEnd = s;

    let bodyPos = lacing + segments;
    let packetStart = bodyPos;
    let first = true;
    const continued = (flags & OGG_FLAG_CONTINUED) !== 0;
    // A continued page without the earlier fragment (we joined mid-packet): drop that fragment.
    let dropping = continued && !(this.hasPartial && this.partialSerial === serial);
    if (!continued || this.partialSerial !== serial) {
      this.hasPartial = false;
      this.partialLength = 0;
    }
    for (let s = 0; s < segments; s++) {
      const lace = b[lacing + s]!;
      bodyPos += lace;
      if (lace === OGG_LACING_CONTINUES) continue;
      // a packet (or the tail of one) ends at bodyPos
      if (dropping) {
        dropping = false;
      } else {
        const bos = (flags & OGG_FLAG_BOS) !== 0 && first;
        const last = s === lastEnd;
        const eos = (flags & OGG_FLAG_EOS) !== 0 && last;
        let bytes = b;
        let from = packetStart;
        let to = bodyPos;
        if (this.hasPartial) {
          this.appendPartial(b, packetStart, bodyPos, pageOffset);
          bytes = this.partial;
          from = 0;
          to = this.partialLength;
          this.hasPartial = false;
          this.partialLength = 0;
        }
        first = false;
        const afterGap = this.sequences.takeGap(serial);
        const sink = this.packetSink;
        const onBytes = this.onPacketBytes;
        if (sink !== undefined || onBytes !== undefined) {
          const info = this.info;
          info.serial = serial;
          info.bos = bos;
          info.eos = eos;
          info.granule = granule;
          info.lastOnPage = last;
          info.pageSequence = sequence;
          info.pageOffset = pageOffset;
          info.afterGap = afterGap;
          if (sink !== undefined) sink.push(bytes, from, to, info);
          else onBytes?.call(this, bytes, from, to, info);
        }
        this.onPacket?.({
          data: bytes.subarray(from, to),
          serial,
          bos,
          eos,
          granule,
          lastOnPage: last,
          pageSequence: sequence,
          pageOffset,
          afterGap,
        });
      }
      packetStart = bodyPos;
    }
    if (packetStart < bodyPos) {
      // The last lacing value was 255: this packet goes on in the next page.
      if (!dropping) {
        this.appendPartial(b, packetStart, bodyPos, pageOffset);
        this.hasPartial = true;
        this.partialSerial = serial;
      }
    }
    this.onPage?.({ serial, granule, pageOffset, pageBytes: length });
  }

  private appendPartial(b: Uint8Array, from: number, to: number, pageOffset: number): void {
    const add = to - from;
    const need = this.partialLength + add;
    if (need > this.maxPacketBytes) {
      this.fail(
        new CodecError('OGG_BAD_PAGE', `Ogg packet over ${this.maxPacketBytes} bytes at page byte ${pageOffset}`, {
          byteOffset: pageOffset,
        }),
      );
    }
    if (need > this.partial.length) {
      // Doubling keeps appends amortised O(1) (no per-page concat of the whole packet).
      const grown = new Uint8Array(Math.min(this.maxPacketBytes, Math.max(need, this.partial.length * 2, 4096)));
      grown.set(this.partial.subarray(0, this.partialLength));
      this.partial = grown;
    }
    this.partial.set(b.subarray(from, to), this.partialLength);
    this.partialLength = need;
  }

  private fail(error: CodecError): never {
    this.failed = error;
    throw error;
  }
}

function badCapture(offset: number): CodecError {
  return new CodecError('OGG_BAD_CAPTURE', `No Ogg capture pattern "OggS" at byte ${offset}`, { byteOffset: offset });
}

function readU32(b: Uint8Array, p: number): number {
  return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
}

/** -1 (all bits set) means "no packet ends on this page". */
function readGranule(b: Uint8Array, p: number): number {
  const lo = readU32(b, p);
  const hi = readU32(b, p + 4);
  if (hi === OGG_NO_GRANULE_HALF && lo === OGG_NO_GRANULE_HALF) return -1;
  return hi * U32_RANGE + lo;
}

function pageLengthFromHeader(b: Uint8Array, p: number): number {
  const segments = b[p + OGG_OFFSET_SEGMENTS]!;
  let body = 0;
  for (let s = 0; s < segments; s++) body += b[p + OGG_HEADER_BYTES + s]!;
  return OGG_HEADER_BYTES + segments + body;
}

/** Length of the page at `b[p..]` when all of it lies before `end`, else 0. */
function completePageLength(b: Uint8Array, p: number, end: number): number {
  if (end - p < OGG_HEADER_BYTES) return 0;
  const segments = b[p + OGG_OFFSET_SEGMENTS]!;
  if (end - p < OGG_HEADER_BYTES + segments) return 0;
  const length = pageLengthFromHeader(b, p);
  return end - p >= length ? length : 0;
}
