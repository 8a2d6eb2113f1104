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
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { createClient } from '../src/client/createClient.js';
import { TelephonyAuthError } from '../src/errors.js';
import { startLocalService, type LocalService } from '../src/service/index.js';
import { twimlConnectStream } from '../src/telephony/answer/index.js';
import {
  MIN_SECRET_BYTES,
  STREAM_TOKEN_PARAMETER,
  createStreamToken,
  verifyStreamTokenParameter,
  verifyTwilioRequest,
} from '../src/telephony/auth/index.js';
import { createClientSpeechSource, createTwilioBridge, type TwilioCall } from '../src/telephony/index.js';

const MEDIA_PATH = '/media';
const DEFAULT_PORT = 8080;
const DEFAULT_GREETING = 'Hello! Thanks for calling voicewire. Press any key on your phone.';
/** Twilio connects the stream within seconds of fetching the TwiML; a minute leaves room for a slow network. */
const STREAM_TOKEN_TTL_MS = 60_000;
/** A socket that sends no `start` within this long is closed (Twilio sends it right after `connected`). */
const START_TIMEOUT_MS = 10_000;
/** Twilio's voice webhook is a few dozen form fields; anything bigger is refused. */
const MAX_WEBHOOK_BODY_BYTES = 64 * 1024;
/** 32 random bytes: the HMAC-SHA256 key size RFC 2104 recommends for SHA-256. */
const STREAM_SECRET_BYTES = 32;

const USAGE = `usage: npx tsx examples/twilio-bridge.ts [options]
  --host H            listen here (default 127.0.0.1)
  --port N            listen on this port, 0 for any (default ${DEFAULT_PORT})
  --base-url URL      the voice service (default: VOICEWIRE_BASE_URL, else the local service in-process)
  --api-key KEY       its API key (default: VOICEWIRE_API_KEY)
  --greeting TEXT     what the bridge says when a call starts
  --auth-token T      verify X-Twilio-Signature with this auth token (default: TWILIO_AUTH_TOKEN)
  --public-url URL    the https:// origin Twilio calls (behind a tunnel or proxy); also names the wss:// stream
  --stream-secret S   key for per-call stream tokens, shared by every replica (default: VOICEWIRE_STREAM_SECRET, else random)
  --help              print this
`;

const DIGIT_WORDS: Record<string, string> = {
  '0': 'zero',
  '1': 'one',
  '2': 'two',
  '3': 'three',
  '4': 'four',
  '5': 'five',
  '6': 'six',
  '7': 'seven',
  '8': 'eight',
  '9': 'nine',
  '*': 'star',
  '#': 'hash',
};

interface BridgeAuth {
  /** Twilio auth token; null = the webhook is not verified. */
  authToken: string | null;
  publicUrl: string | undefined;
  streamSecret: string | Buffer;
}

/** Reads a body up to `limit` bytes; null when it is over (the caller answers 413). */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function mediaUrl(req: IncomingMessage, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return `${publicUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}${MEDIA_PATH}`;
  const host = req.headers['x-forwarded-host'] ?? req.headers.host ?? '127.0.0.1';
  const scheme = req.headers['x-forwarded-proto'] === 'https' ? 'wss' : 'ws';
  return `${scheme}://${String(host)}${MEDIA_PATH}`;
}

async function twiml(
  req: IncomingMessage,
  res: ServerResponse,
  greeting: string,
  auth: BridgeAuth,
  log: (line: string) => void,
): Promise<void> {
  const body = await readBody(req, MAX_WEBHOOK_BODY_BYTES);
  if (body === null) {
    res.writeHead(413, { connection: 'close' }).end();
    return;
  }
  let params: URLSearchParams;
  if (auth.authToken !== null) {
    try {
      params = verifyTwilioRequest(req, body, {
        authToken: auth.authToken,
        ...(auth.publicUrl !== undefined ? { publicUrl: auth.publicUrl } : {}),
      });
    } catch (err) {
      if (!(err instanceof TelephonyAuthError)) throw err;
      log(`refused /twiml: ${err.code}`);
      res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden\n');
      return;
    }
  } else {
    params = new URLSearchParams(body.toString('utf8'));
  }
  const callSid = params.get('CallSid');
  const token = createStreamToken({
    secret: auth.streamSecret,
    ...(callSid !== null && callSid !== '' ? { callId: callSid } : {}),
    ttlMs: STREAM_TOKEN_TTL_MS,
    now: Date.now(),
  });
  res.writeHead(200, { 'content-type': 'text/xml' });
  res.end(twimlConnectStream({ url: mediaUrl(req, auth.publicUrl), parameters: { greeting, [STREAM_TOKEN_PARAMETER]: token } }));
}

function answer(call: TwilioCall, auth: BridgeAuth, log: (line: string) => void): void {
  let authorized = false;
  const startTimer = setTimeout(() => {
    log('closing a stream that sent no start');
    call.close();
  }, START_TIMEOUT_MS);
  call.on('start', (info) => {
    clearTimeout(startTimer);
    try {
      verifyStreamTokenParameter(info.customParameters, { secret: auth.streamSecret, now: Date.now(), callId: info.callSid });
    } catch (err) {
      if (!(err instanceof TelephonyAuthError)) throw err;
      log(`refused stream for call ${info.callSid}: ${err.code}`);
      call.close();
      return;
    }
    authorized = true;
    log(`call ${info.callSid} started (stream ${info.streamSid})`);
    void call.speak(info.customParameters['greeting'] ?? DEFAULT_GREETING).then((r) => log(`greeting ${r.status}: heard "${r.heardText}"`));
  });
  call.on('word', (w) => log(`  heard: ${w.text}`));
  call.on('dtmf', ({ digit }) => {
    if (!authorized) return; // nothing is spoken for a stream that has not shown a valid token
    const cut = call.interrupt();
    if (cut !== null) log(`barge-in after "${cut.heardText}" (${cut.cut.length} words cut)`);
    void call.speak(`You pressed ${DIGIT_WORDS[digit] ?? digit}.`);
  });
  let interruptedByVoice = false;
  call.on('bargeInPause', ({ atMs }) => log(`caller speaking over the bot at ${atMs} ms: paused`));
  call.on('falseInterruption', () => log('false interruption: resumed where it paused'));
  call.on('bargeIn', (cut) => {
    interruptedByVoice = true;
    log(`barge-in by voice after "${cut.heardText}" (${cut.cut.length} words cut)`);
  });
  call.on('callerSpeechStarted', ({ atMs }) => log(`caller turn started at ${atMs} ms`));
  call.on('callerSpeechEnded', ({ atMs, turn }) => {
    const seconds = turn === null ? 0 : turn.audio.length / turn.sampleRate;
    log(`caller turn ended at ${atMs} ms (${seconds.toFixed(2)} s of audio with pre-roll)`);
    if (!authorized || !interruptedByVoice) return;
    interruptedByVoice = false;
    void call.speak(`I heard you for ${seconds.toFixed(1)} seconds.`); // plug a speech recogniser here (turn.audio)
  });
  call.on('warning', (w) => log(`warning: ${w.message}`));
  call.on('close', ({ reason }) => {
    clearTimeout(startTimer);
    log(`call ended (${reason})`);
  });
  call.inbound.resume(); // plug a speech recogniser here; this example drops the caller's audio
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: String(DEFAULT_PORT) },
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      greeting: { type: 'string', default: DEFAULT_GREETING },
      'auth-token': { type: 'string' },
      'public-url': { type: 'string' },
      'stream-secret': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) {
    process.stdout.write(USAGE);
    return;
  }
  const log = (line: string): void => void process.stdout.write(`${line}\n`);
  const authToken = values['auth-token'] ?? process.env['TWILIO_AUTH_TOKEN'] ?? '';
  const publicUrl = values['public-url'];
  if (publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(publicUrl)) throw new Error('--public-url must be an http(s):// URL');
  const sharedSecret = values['stream-secret'] ?? process.env['VOICEWIRE_STREAM_SECRET'] ?? '';
  if (sharedSecret !== '' && Buffer.byteLength(sharedSecret) < MIN_SECRET_BYTES) {
    throw new Error(`--stream-secret must be at least ${MIN_SECRET_BYTES} bytes`);
  }
  const streamSecret = sharedSecret !== '' ? sharedSecret : randomBytes(STREAM_SECRET_BYTES);
  const auth: BridgeAuth = { authToken: authToken === '' ? null : authToken, publicUrl, streamSecret };
  if (auth.authToken === null) {
    process.stderr.write('warning: no --auth-token (nor TWILIO_AUTH_TOKEN): POST /twiml is unauthenticated\n');
  }

  let service: LocalService | null = null;
  let baseUrl = values['base-url'] ?? process.env['VOICEWIRE_BASE_URL'];
  let apiKey = values['api-key'] ?? process.env['VOICEWIRE_API_KEY'];
  if (baseUrl === undefined || baseUrl === '') {
    service = await startLocalService();
    baseUrl = service.baseUrl;
    apiKey = service.token;
    log(`local voice service: ${baseUrl}`);
  }
  const source = createClientSpeechSource(createClient({ baseUrl, ...(apiKey !== undefined ? { apiKey } : {}) }));
  const http = createServer((req, res) => {
    if (req.method === 'POST' && req.url?.startsWith('/twiml') === true) {
      twiml(req, res, values.greeting, auth, log).catch((err: unknown) => {
        log(`/twiml failed: ${(err as Error).message}`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    res.writeHead(404).end();
  });
  const bridge = await createTwilioBridge({
    server: http,
    path: MEDIA_PATH,
    source,
    bargeIn: true,
    onCall: (call) => answer(call, auth, log),
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(Number(values.port), values.host, resolve);
  });
  const address = http.address() as { address: string; port: number };
  log(`twilio bridge: ws://${address.address}:${address.port}${MEDIA_PATH} (TwiML at POST /twiml)`);

  const stop = async (): Promise<void> => {
    await bridge.close();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await service?.close();
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
});
