/**
 * A runnable Twilio Media Streams bridge.
 *
 *   npx tsx examples/twilio-bridge.ts [--host 127.0.0.1] [--port 8080] [--base-url URL --api-key KEY]
 *                                     [--auth-token TOKEN] [--public-url https://voice.example.com]
 *
 * - `POST /twiml` answers Twilio's voice webhook with `<Connect><Stream>` pointing at `/media`,
 *   passing a `greeting` custom parameter and a per-call stream token (put the bridge behind a TLS
 *   tunnel for a real number).
 * - With `--auth-token` (or TWILIO_AUTH_TOKEN) the webhook's `X-Twilio-Signature` is verified and
 *   anything unsigned gets 403; behind a tunnel or proxy, `--public-url` names the URL Twilio calls.
 *   Without a token it says once that the webhook is unauthenticated.
 * - On `start` the stream token (bound to the call's CallSid, valid for a minute) is checked before
 *   anything is spoken: a socket without a valid one is closed and nothing is synthesised.
 * - Then it speaks the `greeting` custom parameter; each DTMF digit interrupts whatever is playing
 *   and answers with speech. Word events print when the caller heard the word.
 * - Barge-in by voice is on: when the caller speaks over the bot it pauses at once, stops (clear)
 *   once the speech lasts past `minInterruptionMs`, or resumes after a cough; when the caller's
 *   turn that interrupted it ends, it answers with speech, as it does for a key press. Every
 *   caller turn prints (start, end, duration).
 * - With no `--base-url` (nor VOICEWIRE_BASE_URL) it starts the local voice service in-process.
 *
 * It is `examples/phone-bridge.ts` fixed to Twilio: that bridge does all of the above for every
 * provider; this file only names the Twilio webhook path and turns barge-in by voice on.
 */
import { runPhoneBridge } from './phone-bridge.js';

/** Twilio's voice webhook (the answer document) is served here. */
const TWIML_PATH = '/twiml';

const USAGE = `usage: npx tsx examples/twilio-bridge.ts [options]
  --host H            listen here (default 127.0.0.1)
  --port N            listen on this port, 0 for any (default 8080)
  --base-url URL      the voice service (default: VOICEWIRE_BASE_URL, else the local service in-process)
  --api-key KEY       its API key (default: VOICEWIRE_API_KEY)
  --greeting TEXT     what the bridge says when a call starts
  --auth-token T      verify X-Twilio-Signature with this auth token (default: TWILIO_AUTH_TOKEN)
  --public-url URL    the https:// origin Twilio calls (behind a tunnel or proxy); also names the wss:// stream
  --stream-secret S   key for per-call stream tokens, shared by every replica (default: VOICEWIRE_STREAM_SECRET, else random)
  --help              print this
`;

runPhoneBridge(process.argv.slice(2), {
  provider: 'twilio',
  answerPath: TWIML_PATH,
  answerMethods: ['POST'],
  bargeIn: true,
  usage: USAGE,
}).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
});
