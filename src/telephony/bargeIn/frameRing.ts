/**
 * A call's hand-over to its detector thread in shared memory: one ring per call in a
 * `SharedArrayBuffer`, written by the call (the bridge's thread, one producer) and read by the
 * detector thread (one consumer). Records are the call's caller audio, played-audio notes and
 * "the bot is speaking / stopped", in the call's order, each with its line time (`atMs`). No
 * object, array or message per frame on either side: the writer copies a frame's bytes into the
 * ring, the reader copies them into a scratch array of its own (native-notes/vad.md, "Audio to the
 * detector thread in shared memory").
 *
 * Layout: a control block of {@link CONTROL_WORDS} int32 words, then the ring of
 * {@link RING_BYTES} bytes. Records are {@link HEADER_BYTES} of header (kind, payload bytes,
 * atMs as a float64) and the payload, padded to {@link RECORD_ALIGN} bytes; a record that would
 * cross the ring's end is preceded by a {@link RecordKind.Pad} record that fills the rest of the ring.
 * Positions are int32 byte counters that wrap at 2³² (the ring's size divides 2³², so
 * `position & RING_MASK` is the place in the ring and `(write - read) | 0` the bytes in use).
 *
 * The writer publishes a record with `Atomics.store` of the write position after the bytes; the
 * reader releases it (and adds its samples to the consumed count the writer reads for
 * `BARGE_IN_BEHIND`) with `Atomics.store` of the read position once the detector is done with it.
 * A full ring refuses the record (the caller drops and counts it); unread data is never overwritten.
 */

/** What a record holds. */
export const RecordKind = {
  /** Skip to the ring's start (the next record did not fit before the end). */
  Pad: 1,
  /** Caller audio, μ-law bytes at 8 kHz. */
  InMulaw: 2,
  /** Caller audio, s16 at 8 kHz. */
  InS16: 3,
  /** The bot's audio as the phone plays it, μ-law. */
  PlayedMulaw: 4,
  /** The bot's audio as the phone plays it, s16. */
  PlayedS16: 5,
  /** The bot started speaking. */
  BotSpeaking: 6,
  /** The bot stopped speaking. */
  BotStopped: 7,
} as const;
export type RecordKind = (typeof RecordKind)[keyof typeof RecordKind];

/** Header: int32 kind, int32 payload bytes, float64 atMs. */
export const HEADER_BYTES = 16;
/** Every record starts on an 8-byte boundary (the float64 atMs, the s16 payload). */
export const RECORD_ALIGN = 8;
/**
 * Bytes audio records may not use: kept for "the bot is speaking / stopped" records (64 of them),
 * so a ring full of audio still takes the bot's turns in order (they decide whether a caller's
 * speech is a barge-in).
 */
export const BOT_RESERVE_BYTES = 64 * HEADER_BYTES;
/**
 * Audio (inbound and played, in samples at 8 kHz) the ring must hold: the call's in-flight bound,
 * `MAX_IN_FLIGHT_MS` (5 s, ../VoiceBargeIn.ts) at the detector's 8 kHz. The bound counts both
 * directions together, so this is 5 s of a caller's burst alone, or 2.5 s each way.
 * test/telephony/bargeIn/frameRing.test.ts checks that the two agree.
 */
export const RING_AUDIO_SAMPLES = 40_000;
/**
 * The shortest frame the ring is sized for: 20 samples, 2.5 ms at 8 kHz. Providers send 20 ms
 * (160 samples); a record's 16-byte header weighs more the shorter the frame. Shorter frames can
 * fill the ring first: then the ring refuses and the call drops and warns (`BARGE_IN_BEHIND`)
 * before 5 s of audio.
 */
export const MIN_RING_FRAME_SAMPLES = 20;
/**
 * The longest frame the ring is sized for: 800 samples, 100 ms at 8 kHz (a provider's largest
 * chunk; 20 ms is usual). A record that does not fit before the ring's end leaves that end unused
 * (a pad record), at most one such record's bytes.
 */
export const MAX_RING_FRAME_SAMPLES = 800;
/** The widest sample the ring carries: s16 (an L16 or A-law line, brought to 8 kHz); μ-law is 1 byte. */
const WIDEST_SAMPLE_BYTES = 2;
/** A record's bytes beyond its samples', at most: its header and its payload's padding to {@link RECORD_ALIGN}. */
const RECORD_OVERHEAD = HEADER_BYTES + RECORD_ALIGN - WIDEST_SAMPLE_BYTES;

/**
 * The ring's size rule: room for `samples` of audio at the widest sample (s16) in records of at
 * least {@link MIN_RING_FRAME_SAMPLES} (each with at most {@link RECORD_OVERHEAD} more), with
 * {@link BOT_RESERVE_BYTES} kept for the bot's changes and the ring's end lost to one pad record
 * of at most a {@link MAX_RING_FRAME_SAMPLES} record, rounded up to a power of two (positions wrap
 * at 2³² on a record boundary). The ring is made before the call's start says the line's format
 * (every call is opened as μ-law 8 kHz and told its line later), so it is sized for the widest:
 * an L16 line's records are twice a μ-law line's.
 */
export function ringBytesFor(samples: number): number {
  const records = Math.ceil(samples / MIN_RING_FRAME_SAMPLES);
  const pad = HEADER_BYTES + padded(MAX_RING_FRAME_SAMPLES * WIDEST_SAMPLE_BYTES);
  const need = samples * WIDEST_SAMPLE_BYTES + records * RECORD_OVERHEAD + BOT_RESERVE_BYTES + pad;
  return 2 ** Math.ceil(Math.log2(need));
}

/**
 * The ring: {@link ringBytesFor}({@link RING_AUDIO_SAMPLES}) = 128 KiB per call (126 640 bytes
 * needed at worst), so the call's in-flight bound (`MAX_IN_FLIGHT_MS`), not the ring, is what
 * refuses audio first on any line, μ-law or L16 (20 ms s16 frames: 84 000 bytes at the bound).
 * At 80 calls it is 10 MiB of shared memory.
 */
export const RING_BYTES = ringBytesFor(RING_AUDIO_SAMPLES);
const RING_MASK = RING_BYTES - 1;

/** Control words (int32) before the ring. */
const WRITE = 0;
const READ = 1;
/** Samples the reader has consumed (inbound and played), wrapping at 2³². */
const CONSUMED = 2;
/** The writer waits for an answer (`settled()`): the reader answers once the ring is empty, even with no decisions. */
const WANT_ANSWER = 3;
export const CONTROL_WORDS = 4;
const CONTROL_BYTES = 16;

/** {@link FrameRing.reserve}'s "no room": never a position (they are multiples of {@link RECORD_ALIGN}, and may be negative). */
const NO_ROOM = 1;

const I32_BYTES = 4;
const S16_BYTES = 2;

function padded(bytes: number): number {
  return (bytes + RECORD_ALIGN - 1) & ~(RECORD_ALIGN - 1);
}

/** One call's ring in shared memory; the writer and the reader each hold a `FrameRing` on the same buffer. */
export class FrameRing {
  readonly buffer: SharedArrayBuffer;
  private readonly control: Int32Array;
  private readonly i32: Int32Array;
  private readonly f64: Float64Array;
  private readonly u8: Uint8Array;
  private readonly s16: Int16Array;
  /** The writer's own count of samples written (wrapping like {@link CONSUMED}). */
  private written = 0;
  /**
   * The reader's {@link READ} and {@link CONSUMED} as the writer last loaded them. Both only grow
   * (mod 2³²), so a stale one counts more in use than there is: when it says "room", there is, and
   * the writer loads the word again only when it would refuse. The reader writes them at every
   * release, from the other core: a load for every record can be a cross-core cache miss on the
   * pacing thread (native-notes/vad.md, "What ON costs the pacing thread").
   */
  private readSeen: number;
  private consumedSeen: number;
  /** Records refused because the ring was full, and their samples (the writer's side). */
  refused = 0;
  refusedSamples = 0;

  // Filled by {@link next}: the record at the read position.
  /** The record's kind (0: none). */
  kind: number = 0;
  /** Its atMs. */
  atMs = 0;
  /** Its samples (payload bytes for μ-law, half of them for s16). */
  samples = 0;
  private payloadAt = 0;
  private recordBytes = 0;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(CONTROL_BYTES + RING_BYTES)) {
    if (buffer.byteLength !== CONTROL_BYTES + RING_BYTES) {
      throw new RangeError(`a frame ring's buffer is ${CONTROL_BYTES + RING_BYTES} bytes, got ${buffer.byteLength}`);
    }
    this.buffer = buffer;
    this.control = new Int32Array(buffer, 0, CONTROL_WORDS);
    this.i32 = new Int32Array(buffer, CONTROL_BYTES, RING_BYTES / I32_BYTES);
    this.f64 = new Float64Array(buffer, CONTROL_BYTES, RING_BYTES / RECORD_ALIGN);
    this.u8 = new Uint8Array(buffer, CONTROL_BYTES, RING_BYTES);
    this.s16 = new Int16Array(buffer, CONTROL_BYTES, RING_BYTES / S16_BYTES);
    this.readSeen = Atomics.load(this.control, READ);
    this.consumedSeen = Atomics.load(this.control, CONSUMED);
  }

  // ---- the writer's side ----

  /** Samples written and not yet consumed by the reader. */
  get inFlight(): number {
    this.consumedSeen = Atomics.load(this.control, CONSUMED);
    return (this.written - this.consumedSeen) | 0;
  }

  /**
   * Whether {@link inFlight} + `samples` ≤ `max`, the same answer as reading it, but the reader's
   * count is loaded only when the one last loaded says no.
   */
  fits(samples: number, max: number): boolean {
    if (((this.written - this.consumedSeen) | 0) + samples <= max) return true;
    return this.inFlight + samples <= max;
  }

  /** Appends audio; false (counted in {@link refused}) when the ring has no room for it. */
  writeAudio(inbound: boolean, pcm: Uint8Array | Int16Array, atMs: number): boolean {
    const s16 = pcm instanceof Int16Array;
    const bytes = s16 ? pcm.length * S16_BYTES : pcm.length;
    const kind = inbound ? (s16 ? RecordKind.InS16 : RecordKind.InMulaw) : s16 ? RecordKind.PlayedS16 : RecordKind.PlayedMulaw;
    const at = this.reserve(HEADER_BYTES + padded(bytes), BOT_RESERVE_BYTES);
    if (at === NO_ROOM) {
      this.refused++;
      this.refusedSamples += pcm.length;
      return false;
    }
    const place = at & RING_MASK;
    this.header(place, kind, bytes, atMs);
    const payload = place + HEADER_BYTES;
    if (s16) this.s16.set(pcm, payload / S16_BYTES);
    else this.u8.set(pcm, payload);
    this.written = (this.written + pcm.length) | 0;
    Atomics.store(this.control, WRITE, (at + HEADER_BYTES + padded(bytes)) | 0);
    return true;
  }

  /** Appends the bot's change; false only when even the reserve is used up. */
  writeBot(speaking: boolean): boolean {
    const at = this.reserve(HEADER_BYTES, 0);
    if (at === NO_ROOM) {
      this.refused++;
      return false;
    }
    this.header(at & RING_MASK, speaking ? RecordKind.BotSpeaking : RecordKind.BotStopped, 0, 0);
    Atomics.store(this.control, WRITE, (at + HEADER_BYTES) | 0);
    return true;
  }

  /**
   * The write position for a record of `size` bytes with `keep` bytes left free after it, after a
   * pad record if it would cross the ring's end; {@link NO_ROOM} (nothing written) when there is no room.
   */
  private reserve(size: number, keep: number): number {
    let write = this.control[WRITE]!; // only this side writes it
    const toEnd = RING_BYTES - (write & RING_MASK);
    const pad = toEnd < size ? toEnd : 0;
    const need = pad + size + keep;
    if (((write - this.readSeen) | 0) + need > RING_BYTES) {
      // No room by the read position last loaded: load it again (the reader may have moved on).
      this.readSeen = Atomics.load(this.control, READ);
      if (((write - this.readSeen) | 0) + need > RING_BYTES) return NO_ROOM;
    }
    if (pad > 0) {
      this.header(write & RING_MASK, RecordKind.Pad, 0, 0);
      write = (write + pad) | 0;
    }
    return write;
  }

  private header(place: number, kind: RecordKind, bytes: number, atMs: number): void {
    this.i32[place / I32_BYTES] = kind;
    if (kind === RecordKind.Pad) return; // the reader reads only its kind (it may be a mere 8 bytes)
    this.i32[place / I32_BYTES + 1] = bytes;
    this.f64[place / RECORD_ALIGN + 1] = atMs;
  }

  /** Asks the reader to answer once it has emptied the ring; true when it already has (no answer needed). */
  wantAnswer(): boolean {
    Atomics.store(this.control, WANT_ANSWER, 1);
    return this.inFlight === 0;
  }

  // ---- the reader's side ----

  /**
   * Loads the record at the read position into {@link kind}, {@link atMs} and {@link samples};
   * false when the ring is empty. The record stays in the ring until {@link release}.
   */
  next(): boolean {
    let read = this.control[READ]!; // only this side writes it
    const write = Atomics.load(this.control, WRITE);
    for (;;) {
      if (read === write) {
        this.kind = 0;
        return false;
      }
      const place = read & RING_MASK;
      const kind = this.i32[place / I32_BYTES]!;
      if (kind === RecordKind.Pad) {
        read = (read + (RING_BYTES - place)) | 0;
        Atomics.store(this.control, READ, read);
        continue;
      }
      const bytes = this.i32[place / I32_BYTES + 1]!;
      this.kind = kind;
      this.atMs = this.f64[place / RECORD_ALIGN + 1]!;
      this.samples = kind === RecordKind.InS16 || kind === RecordKind.PlayedS16 ? bytes / S16_BYTES : bytes;
      this.payloadAt = place + HEADER_BYTES;
      this.recordBytes = HEADER_BYTES + padded(bytes);
      return true;
    }
  }

  /** Whether the loaded record's payload is s16 (else μ-law bytes). */
  get isS16(): boolean {
    return this.kind === RecordKind.InS16 || this.kind === RecordKind.PlayedS16;
  }

  /** Copies the loaded record's μ-law payload into `into` (at least {@link samples} long). */
  copyMulaw(into: Uint8Array): void {
    const from = this.payloadAt;
    const u8 = this.u8;
    for (let i = 0; i < this.samples; i++) into[i] = u8[from + i]!;
  }

  /** Copies the loaded record's s16 payload into `into` (at least {@link samples} long). */
  copyS16(into: Int16Array): void {
    const from = this.payloadAt / S16_BYTES;
    const s16 = this.s16;
    for (let i = 0; i < this.samples; i++) into[i] = s16[from + i]!;
  }

  /** The loaded record is done with: its bytes are free and its samples counted as consumed. */
  release(): void {
    const samples = this.kind === RecordKind.BotSpeaking || this.kind === RecordKind.BotStopped ? 0 : this.samples;
    Atomics.store(this.control, READ, (this.control[READ]! + this.recordBytes) | 0);
    if (samples > 0) Atomics.add(this.control, CONSUMED, samples);
    this.kind = 0;
  }

  /** Whether the ring is empty (the reader's view). */
  get empty(): boolean {
    return this.control[READ] === Atomics.load(this.control, WRITE);
  }

  /** The writer asked for an answer: true once (the request is taken). */
  takeAnswerRequest(): boolean {
    return Atomics.compareExchange(this.control, WANT_ANSWER, 1, 0) === 1;
  }
}
