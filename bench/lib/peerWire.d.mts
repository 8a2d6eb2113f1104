// Types of bench/lib/peerWire.mjs (plain JavaScript: the phones' worker thread runs without a TypeScript loader).
/** The `"event":"<name>"` bytes a provider's media message carries at its top level. */
export function eventTag(name: string): Buffer;
/** The audio bytes a JSON media message carries, read from its bytes; null for any other message. */
export function mediaPayloadBytes(data: Buffer, tag: Buffer): number | null;
/** A writer for a message with one string hole, byte for byte `JSON.stringify(answer(name))`. */
export function stringTemplate(answer: (name: string) => unknown): (name: string) => string;
/** A Twilio inbound media message as `JSON.stringify` writes it. */
export function twilioInbound(streamSid: string, chunk: number, payload: string, frameMs: number): string;
