/**
 * What the bench phones (bench/providerPeers.worker.mjs) do per message, without the work a real
 * phone would not spend on a message it only plays: read a media message's audio length from its
 * bytes (no UTF-8 decode, no `JSON.parse`, no base64 decode), and write an acknowledgement or an
 * inbound frame from a template made once (no object built and stringified per message). What goes
 * on the wire is unchanged: the templates' output is byte for byte `JSON.stringify` of the message
 * (test/bench/peerWire.test.ts), and a message the fast read does not recognise is parsed in full.
 */
import { Buffer } from 'node:buffer';

/** `"payload":"`: where a JSON media message's base64 audio starts (Twilio, Telnyx, Plivo, Exotel). */
const PAYLOAD_KEY = Buffer.from('"payload":"');
/** `"`: where the base64 ends (base64 has no quote and JSON.stringify escapes none in it). */
const QUOTE = 0x22;
/** `=`: base64 padding. */
const PAD = 0x3d;
/** Base64 packs 3 bytes in 4 characters. */
const BASE64_BYTES = 3;
const BASE64_CHARS = 4;

/**
 * The `"event":"<name>"` bytes a provider's media message carries at its top level. The substring
 * cannot occur inside a JSON string value: a quote there is always escaped (`\"`).
 */
/** @param {string} name @returns {Buffer} */
export function eventTag(name) {
  return Buffer.from(`"event":${JSON.stringify(name)}`);
}

/**
 * The audio bytes a JSON media message carries, read from its bytes: the message must hold `tag`
 * ({@link eventTag}) and a `"payload":"<base64>"`. Null for any other message (an acknowledgement
 * request, a clear, or a media message written another way): parse that one in full.
 */
/** @param {Buffer} data @param {Buffer} tag @returns {number | null} */
export function mediaPayloadBytes(data, tag) {
  if (data.indexOf(tag) < 0) return null;
  const key = data.indexOf(PAYLOAD_KEY);
  if (key < 0) return null;
  const start = key + PAYLOAD_KEY.length;
  const end = data.indexOf(QUOTE, start);
  if (end < 0) return null;
  let chars = end - start;
  // Padding ('=' or '==') at the end carries no bytes.
  let pad = 0;
  while (pad < 2 && chars > 0 && data[start + chars - 1] === PAD) {
    pad++;
    chars--;
  }
  return Math.floor(((chars + pad) * BASE64_BYTES) / BASE64_CHARS) - pad;
}

/** A control character no mark name from the bench's bridge holds: where the template's hole is. */
const HOLE = '\u0001';

/**
 * A writer for a message with one string hole: `answer(name)` built once with a placeholder and
 * cut around it, so each message is two concatenations and `JSON.stringify(name)`. The output is
 * `JSON.stringify(answer(name))` exactly, when the placeholder appears once in the message (the
 * writer checks that when it is made and throws otherwise).
 */
/** @param {(name: string) => unknown} answer @returns {(name: string) => string} */
export function stringTemplate(answer) {
  const whole = JSON.stringify(answer(HOLE));
  const hole = JSON.stringify(HOLE);
  const at = whole.indexOf(hole);
  if (at < 0 || whole.indexOf(hole, at + 1) >= 0) throw new Error('stringTemplate: the message must hold its string once');
  const before = whole.slice(0, at);
  const after = whole.slice(at + hole.length);
  return (name) => before + JSON.stringify(name) + after;
}

/**
 * A Twilio inbound media message (the caller's 20 ms frame `chunk`, 1-based, of stream `streamSid`)
 * as `JSON.stringify` writes `{ event, sequenceNumber, streamSid, media: { track, chunk, timestamp,
 * payload } }`. `streamSid` and `payload` (base64) hold no character JSON escapes.
 */
/** @param {string} streamSid @param {number} chunk @param {string} payload @param {number} frameMs @returns {string} */
export function twilioInbound(streamSid, chunk, payload, frameMs) {
  return (
    `{"event":"media","sequenceNumber":"${chunk + 1}","streamSid":"${streamSid}","media":{"track":"inbound",` +
    `"chunk":"${chunk}","timestamp":"${(chunk - 1) * frameMs}","payload":"${payload}"}}`
  );
}
