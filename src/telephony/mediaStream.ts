/**
 * One entry point for every provider: `attachMediaStream(socket, { provider: 'telnyx', ... })`
 * picks the provider's adapter and returns its call on the shared {@link CallCore}.
 */
import { InvalidOptionError } from '../errors.js';
import type { CallCore } from './CallCore.js';
import type { CallOptions } from './callOptions.js';
import type { MediaSocket } from './mediaSocket.js';
import type { ProviderAdapter } from './providerAdapter.js';
import { ExotelAdapter, attachExotelMediaStream, type ExotelCall } from './providers/exotelAdapter.js';
import type { ExotelStart } from './providers/exotelMessages.js';
import { PlivoAdapter, attachPlivoMediaStream, type PlivoCall } from './providers/plivoAdapter.js';
import type { PlivoStart } from './providers/plivoMessages.js';
import { TelnyxAdapter, attachTelnyxMediaStream, type TelnyxCall } from './providers/telnyxAdapter.js';
import type { TelnyxStart } from './providers/telnyxMessages.js';
import { VonageAdapter, attachVonageMediaStream, type VonageCall } from './providers/vonageAdapter.js';
import type { VonageConnected } from './providers/vonageMessages.js';
import { attachTwilioMediaStream, type TwilioCall } from './TwilioCall.js';
import { TwilioAdapter } from './twilioAdapter.js';
import type { StartInfo } from './twilioMessages.js';

/** The media-stream providers voicewire speaks. */
export const PROVIDERS = ['twilio', 'telnyx', 'plivo', 'vonage', 'exotel'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Each provider's start details (what `call.on('start')` gives). */
export interface ProviderStartInfo {
  twilio: StartInfo;
  telnyx: TelnyxStart;
  plivo: PlivoStart;
  vonage: VonageConnected;
  exotel: ExotelStart;
}

/** Each provider's call class. */
export interface ProviderCalls {
  twilio: TwilioCall;
  telnyx: TelnyxCall;
  plivo: PlivoCall;
  vonage: VonageCall;
  exotel: ExotelCall;
}

/** A call on any provider. */
export type AnyProviderCall = ProviderCalls[ProviderName];

export interface MediaStreamOptions<P extends ProviderName = ProviderName> extends CallOptions {
  provider: P;
}

export function isProviderName(name: string): name is ProviderName {
  return (PROVIDERS as readonly string[]).includes(name);
}

function checkProvider(provider: string): asserts provider is ProviderName {
  if (!isProviderName(provider)) {
    throw new InvalidOptionError('provider', `unknown provider ${JSON.stringify(provider)}; expected one of ${PROVIDERS.join(', ')}`);
  }
}

/** A fresh adapter (one per call) for `provider`. */
export function createProviderAdapter<P extends ProviderName>(provider: P): ProviderAdapter<ProviderStartInfo[P]>;
export function createProviderAdapter(provider: ProviderName): ProviderAdapter<unknown> {
  checkProvider(provider);
  switch (provider) {
    case 'twilio':
      return new TwilioAdapter();
    case 'telnyx':
      return new TelnyxAdapter();
    case 'plivo':
      return new PlivoAdapter();
    case 'vonage':
      return new VonageAdapter();
    case 'exotel':
      return new ExotelAdapter();
  }
}

/**
 * Attaches a bridge to a provider's media stream socket (from a `ws` WebSocketServer).
 * @example
 * ```ts
 * const call = attachMediaStream(ws, { provider: 'telnyx', source });
 * call.on('start', () => void call.speak('Hello!'));
 * ```
 */
export function attachMediaStream<P extends ProviderName>(socket: MediaSocket, options: MediaStreamOptions<P>): ProviderCalls[P];
export function attachMediaStream(socket: MediaSocket, options: MediaStreamOptions): CallCore<unknown> {
  const { provider, ...callOptions } = options;
  checkProvider(provider);
  switch (provider) {
    case 'twilio':
      return attachTwilioMediaStream(socket, callOptions) as CallCore<unknown>;
    case 'telnyx':
      return attachTelnyxMediaStream(socket, callOptions) as CallCore<unknown>;
    case 'plivo':
      return attachPlivoMediaStream(socket, callOptions) as CallCore<unknown>;
    case 'vonage':
      return attachVonageMediaStream(socket, callOptions) as CallCore<unknown>;
    case 'exotel':
      return attachExotelMediaStream(socket, callOptions) as CallCore<unknown>;
  }
}
