/**
 * What the telephony bridge needs from a WebSocket and its server, written out here so that the
 * public declarations never import `ws`: `@types/ws` is a development dependency, and a
 * consumer compiling with `skipLibCheck: false` would otherwise have to install it. A `ws`
 * WebSocket (and WebSocketServer) fits these shapes as it is, so `attachTwilioMediaStream(ws)`
 * takes one unchanged.
 */
import type { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';

/** One incoming message's data, as `ws` hands it to a 'message' listener (its `RawData`). */
export type MediaSocketData = Buffer | ArrayBuffer | Buffer[];

/**
 * A provider's media stream connection (Twilio Media Stream …): 'message' `(data: MediaSocketData, isBinary: boolean)`,
 * 'close' and 'error' `(err: Error)` events, the `readyState` numbers of the WebSocket standard
 * (1 = open), and how many bytes are queued but not yet sent.
 */
export interface MediaSocket extends EventEmitter {
  readonly readyState: number;
  readonly bufferedAmount: number;
  /** Text (JSON) frames, or binary frames for providers that send audio raw (Vonage). */
  send(data: string | Uint8Array, cb?: (err?: Error) => void): void;
  close(code?: number): void;
}

/** The WebSocket server under a bridge (a `ws` WebSocketServer): its live sockets and address. */
export interface MediaSocketServer extends EventEmitter {
  readonly clients: ReadonlySet<MediaSocket>;
  address(): AddressInfo | string | null;
}
