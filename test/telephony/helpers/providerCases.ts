/**
 * Every provider the call core serves, as the behavioural suite and the bench need it: how its
 * test peer connects and sends caller audio, DTMF and a stop; the line format of the stream it
 * starts; and the line bytes the engine's s16 (or G.711) output becomes on that line.
 */
import { alawDecode, alawEncode } from '../../../src/dsp/alaw.js';
import { l16Encode } from '../../../src/dsp/l16.js';
import { mulawDecode, mulawEncode } from '../../../src/dsp/mulaw.js';
import type { LineFormat } from '../../../src/telephony/lineFormat.js';
import type { ProviderName } from '../../../src/telephony/mediaStream.js';
import type { OutboundChunking } from '../../../src/telephony/providerAdapter.js';
import { createProviderAdapter } from '../../../src/telephony/mediaStream.js';
import type { ManualClock } from './ManualClock.js';
import { ExotelPeer } from './peers/ExotelPeer.js';
import { PlivoPeer } from './peers/PlivoPeer.js';
import { TelnyxPeer } from './peers/TelnyxPeer.js';
import { VonagePeer } from './peers/VonagePeer.js';
import { TwilioPeer } from './TwilioPeer.js';

/** What the suite needs of a test peer, whichever provider it plays. */
export interface LinePeer {
  readonly ws: import('ws').WebSocket;
  readonly receivedSamples: number;
  readonly playedSamples: number;
  readonly clears: readonly { at: number; playedSamples: number }[];
  readonly mediaAfterClear: number;
  audio(): Buffer;
  timeOfSample(k: number): number | null;
  roundTrip(): Promise<void>;
  close(): void;
  sendDtmf(digit: string): void;
}

export interface ProviderCase<P extends LinePeer = LinePeer> {
  provider: ProviderName;
  /** The stream the peer starts (the suite's default line for this provider). */
  format: LineFormat;
  connect(url: string, clock: ManualClock, customParameters?: Record<string, string>): Promise<P>;
  /** Caller audio (s16) as this provider sends it. */
  sendCallerAudio(peer: P, pcm: Int16Array): void;
  /** What the caller audio decodes to on the bridge (the line's loss applied). */
  callerAudioAfterLine(pcm: Int16Array): Int16Array;
  /** Ends the stream from the provider's side with its stop message; null when it has none. */
  sendStop: ((peer: P) => void) | null;
  /** What the peer reports the app did wrong (Twilio's peer keeps no list). */
  violations(peer: P): readonly string[];
}

/** The line bytes for engine samples: G.711 codes as they are, s16 in the line's byte order. */
export function lineBytes(samples: Uint8Array | Int16Array, format: LineFormat): Uint8Array {
  if (samples instanceof Uint8Array) return samples;
  return l16Encode(samples, format.byteOrder ?? 'le');
}

/** This provider's outbound cutting for `format`. */
export function chunkingOf(provider: ProviderName, format: LineFormat): OutboundChunking {
  return createProviderAdapter(provider).chunking(format);
}

const l16 = (pcm: Int16Array): Int16Array => pcm;

export const PROVIDER_CASES: readonly ProviderCase[] = [
  {
    provider: 'twilio',
    format: { encoding: 'mulaw', sampleRate: 8000 },
    connect: (url, clock, customParameters) => TwilioPeer.connect(url, clock, customParameters ? { customParameters } : {}),
    sendCallerAudio: (peer, pcm) => (peer as TwilioPeer).sendMedia(mulawEncode(pcm)),
    callerAudioAfterLine: (pcm) => mulawDecode(mulawEncode(pcm)),
    sendStop: (peer) => (peer as TwilioPeer).sendStop(),
    violations: () => [],
  },
  {
    provider: 'telnyx',
    format: { encoding: 'alaw', sampleRate: 8000 },
    connect: (url, clock, customParameters) =>
      TelnyxPeer.connect(url, clock, { encoding: 'PCMA', ...(customParameters ? { customParameters } : {}) }),
    sendCallerAudio: (peer, pcm) => (peer as TelnyxPeer).sendMedia(alawEncode(pcm)),
    callerAudioAfterLine: (pcm) => alawDecode(alawEncode(pcm)),
    sendStop: (peer) => (peer as TelnyxPeer).sendStop(),
    violations: (peer) => (peer as TelnyxPeer).violations,
  },
  {
    provider: 'plivo',
    format: { encoding: 'l16', sampleRate: 16000, byteOrder: 'le' },
    connect: (url, clock, customParameters) =>
      PlivoPeer.connect(url, clock, {
        contentType: 'audio/x-l16',
        sampleRate: 16000,
        ...(customParameters
          ? {
              extraHeaders: Object.entries(customParameters)
                .map(([k, v]) => `${k}=${v}`)
                .join(';'),
            }
          : {}),
      }),
    sendCallerAudio: (peer, pcm) => (peer as PlivoPeer).sendMedia(l16Encode(pcm, 'le')),
    callerAudioAfterLine: l16,
    sendStop: null,
    violations: (peer) => (peer as PlivoPeer).violations,
  },
  {
    provider: 'vonage',
    format: { encoding: 'l16', sampleRate: 16000, byteOrder: 'le' },
    connect: (url, clock, customParameters) =>
      VonagePeer.connect(url, clock, { sampleRate: 16000, ...(customParameters ? { headers: customParameters } : {}) }),
    sendCallerAudio: (peer, pcm) => (peer as VonagePeer).sendAudio(pcm),
    callerAudioAfterLine: l16,
    sendStop: null,
    violations: (peer) => (peer as VonagePeer).violations,
  },
  {
    provider: 'exotel',
    format: { encoding: 'l16', sampleRate: 8000, byteOrder: 'le' },
    connect: (url, clock, customParameters) => ExotelPeer.connect(url, clock, customParameters ? { customParameters } : {}),
    sendCallerAudio: (peer, pcm) => (peer as ExotelPeer).sendMedia(l16Encode(pcm, 'le')),
    callerAudioAfterLine: l16,
    sendStop: (peer) => (peer as ExotelPeer).sendStop(),
    violations: (peer) => (peer as ExotelPeer).violations,
  },
];

/**
 * The other line formats each provider serves (the cases above are each one's default line): the
 * suite runs on these too.
 */
export const FORMAT_VARIANTS: readonly ProviderCase[] = [
  {
    ...providerCaseOf('telnyx'),
    format: { encoding: 'mulaw', sampleRate: 8000 },
    connect: (url, clock, customParameters) =>
      TelnyxPeer.connect(url, clock, { encoding: 'PCMU', ...(customParameters ? { customParameters } : {}) }),
    sendCallerAudio: (peer, pcm) => (peer as TelnyxPeer).sendMedia(mulawEncode(pcm)),
    callerAudioAfterLine: (pcm) => mulawDecode(mulawEncode(pcm)),
  },
  {
    ...providerCaseOf('telnyx'),
    format: { encoding: 'l16', sampleRate: 16000, byteOrder: 'be' },
    connect: (url, clock, customParameters) =>
      TelnyxPeer.connect(url, clock, { encoding: 'L16', sampleRate: 16000, ...(customParameters ? { customParameters } : {}) }),
    sendCallerAudio: (peer, pcm) => (peer as TelnyxPeer).sendMedia(l16Encode(pcm, 'be')),
    callerAudioAfterLine: l16,
  },
  {
    ...providerCaseOf('plivo'),
    format: { encoding: 'mulaw', sampleRate: 8000 },
    connect: (url, clock, customParameters) =>
      PlivoPeer.connect(url, clock, { contentType: 'audio/x-mulaw', sampleRate: 8000, ...plivoHeaders(customParameters) }),
    sendCallerAudio: (peer, pcm) => (peer as PlivoPeer).sendMedia(mulawEncode(pcm)),
    callerAudioAfterLine: (pcm) => mulawDecode(mulawEncode(pcm)),
  },
  {
    ...providerCaseOf('plivo'),
    format: { encoding: 'l16', sampleRate: 8000, byteOrder: 'le' },
    connect: (url, clock, customParameters) =>
      PlivoPeer.connect(url, clock, { contentType: 'audio/x-l16', sampleRate: 8000, ...plivoHeaders(customParameters) }),
  },
  {
    ...providerCaseOf('vonage'),
    format: { encoding: 'l16', sampleRate: 8000, byteOrder: 'le' },
    connect: (url, clock, customParameters) =>
      VonagePeer.connect(url, clock, { sampleRate: 8000, ...(customParameters ? { headers: customParameters } : {}) }),
  },
  {
    ...providerCaseOf('exotel'),
    format: { encoding: 'l16', sampleRate: 16000, byteOrder: 'le' },
    connect: (url, clock, customParameters) =>
      ExotelPeer.connect(url, clock, { sampleRate: 16000, ...(customParameters ? { customParameters } : {}) }),
  },
];

function providerCaseOf(provider: ProviderName): ProviderCase {
  return PROVIDER_CASES.find((p) => p.provider === provider)!;
}

function plivoHeaders(customParameters: Record<string, string> | undefined): { extraHeaders?: string } {
  if (customParameters === undefined) return {};
  return {
    extraHeaders: Object.entries(customParameters)
      .map(([k, v]) => `${k}=${v}`)
      .join(';'),
  };
}

/** The case for `provider`. */
export function providerCase(provider: ProviderName): ProviderCase {
  const c = PROVIDER_CASES.find((p) => p.provider === provider);
  if (c === undefined) throw new Error(`no case for ${provider}`);
  return c;
}
