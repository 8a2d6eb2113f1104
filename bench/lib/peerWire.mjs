/**
 * What the bench phones (bench/providerPeers.worker.mjs) do per message, without the work a real
 * phone would not spend on a message it only plays: read a media message's audio length from its
 * bytes (no UTF-8 decode, no `JSON.parse`, no base64 decode), and write an acknowledgement or an
 * inbound frame from a template made once (no object built and stringified per message). What goes
 * on the wire is unchanged: the templates' output is byte for byte `JSON.stringify` of the message
 * (test/bench/peerWire.test.ts), and a message the fast read does not recognise is parsed in full.
 */
import { Buffer } from 'node:buffer';

/** `"payload":"`: the key before a JSON media message's base64 audio (Twilio, Telnyx, Plivo, Exotel). */
const PAYLOAD_KEY = Buffer.from('"payload":"');
/** `"}}`: how the bridge's JSON media messages end, the payload being the last member of `media`. */
const MEDIA_END = Buffer.from('"}}');
/** `{`: the first byte of a JSON object. */
const OPEN_BRACE = 0x7b;
/** `"`: base64 holds no quote, so the last quote before the end opens the payload. */
const QUOTE = 0x22;
/** `=`: base64 padding. */
const PAD = 0x3d;
/** Base64 packs 3 bytes in 4 characters. */
const BASE64_BYTES = 3;
const BASE64_CHARS = 4;
/** At most two `=` end a base64 text. */
const MAX_PAD = 2;

/**
 * The `"event":"<name>"` bytes a provider's media message opens with. The substring cannot occur
 * inside a JSON string value: a quote there is always escaped (`\"`).
 *
 * @param {string} name @returns {Buffer}
 */
export function eventTag(name) {
  return Buffer.from(`"event":${JSON.stringify(name)}`);
}

/**
 * Whether `data` holds `bytes` at `at` (a byte loop: cheaper than a native call for a dozen bytes).
 *
 * @param {Buffer} data @param {number} at @param {Buffer} bytes @returns {boolean}
 */
function holdsAt(data, at, bytes) {
  if (at < 0 || at + bytes.length > data.length) return false;
  for (let k = 0; k < bytes.length; k++) if (data[at + k] !== bytes[k]) return false;
  return true;
}

/**
 * The audio bytes a JSON media message carries, read from its bytes as the bridge writes it: it
 * opens with `{` and `tag` ({@link eventTag}) and ends with `"payload":"<base64>"}}`. Null for any
 * other message (an acknowledgement request, a clear, or a media message written another way):
 * parse that one in full. One native search (the payload's opening quote, from the end); the rest
 * are byte compares.
 *
 * @param {Buffer} data @param {Buffer} tag @returns {number | null}
 */
export function mediaPayloadBytes(data, tag) {
  if (data[0] !== OPEN_BRACE || !holdsAt(data, 1, tag)) return null;
  const end = data.length - MEDIA_END.length; // the payload's closing quote
  if (!holdsAt(data, end, MEDIA_END)) return null;
  const open = end === 0 ? -1 : data.lastIndexOf(QUOTE, end - 1);
  if (!holdsAt(data, open - PAYLOAD_KEY.length + 1, PAYLOAD_KEY)) return null;
  const start = open + 1;
  let chars = end - start;
  // Padding ('=' or '==') at the end carries no bytes.
  let pad = 0;
  while (pad < MAX_PAD && chars > 0 && data[start + chars - 1] === PAD) {
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
 *
 * @param {(name: string) => unknown} answer @returns {(name: string) => string}
 */
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
 *
 * @param {string} streamSid @param {number} chunk @param {string} payload @param {number} frameMs @returns {string}
 */
export function twilioInbound(streamSid, chunk, payload, frameMs) {
  return (
    `{"event":"media","sequenceNumber":"${chunk + 1}","streamSid":"${streamSid}","media":{"track":"inbound",` +
    `"chunk":"${chunk}","timestamp":"${(chunk - 1) * frameMs}","payload":"${payload}"}}`
  );
}
