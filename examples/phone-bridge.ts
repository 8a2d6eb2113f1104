/**
 * A runnable phone bridge for any media-stream provider on the call core.
 *
 *   npx tsx examples/phone-bridge.ts --provider twilio|telnyx|plivo|vonage|exotel
 *                                    [--host 127.0.0.1] [--port 8080] [--base-url URL --api-key KEY]
 *                                    [--auth-token TOKEN] [--public-url https://voice.example.com]
 *
 * It serves the answer document the provider asks for, pointing the call at `/media` with a
 * per-call stream token, and checks that token at the stream's start before anything is spoken
 * (a socket without a valid one is closed and nothing is synthesised):
 *
 * - twilio: `POST /answer` → TwiML `<Connect><Stream>`; the token is a `<Parameter>` bound to the
 *   CallSid, and with `--auth-token` the webhook's `X-Twilio-Signature` is checked (403 when wrong).
 * - telnyx: `POST /answer` → TeXML `<Connect><Stream bidirectionalMode="rtp">` (PCMU); a `<Parameter>`.
 * - plivo: `POST /answer` → Plivo XML `<Stream bidirectional="true">` (μ-law 8 kHz); the token goes
 *   in `extraHeaders` as hex (Plivo takes letters and digits only).
 * - vonage: `GET /answer` → an NCCO `connect` to a `websocket` endpoint (L16 16 kHz); the token is
 *   one of the endpoint's `headers`, bound to the call's uuid.
 * - exotel: `GET /answer` → `{"url": "wss://…"}` for the Voicebot applet's dynamic URL; the token
 *   is in the URL's query (Exotel's custom parameters).
 *
 * Then it speaks the greeting; each DTMF digit interrupts whatever is playing and answers with
 * speech. Word events print when the caller heard the word. With no `--base-url` (nor
 * VOICEWIRE_BASE_URL) it starts the local voice service in-process. With `--barge-in` the
 * caller's voice interrupts the bot too (and every caller turn prints). `examples/twilio-bridge.ts`
 * is this bridge fixed to Twilio, with its webhook at `POST /twiml` and barge-in by voice on
 * ({@link runPhoneBridge}).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient } from '../src/client/createClient.js';
import { TelephonyAuthError } from '../src/errors.js';
import { startLocalService, type LocalService } from '../src/service/index.js';
import {
  exotelStreamUrl,
  plivoStreamXml,
  texmlConnectStream,
  twimlConnectStream,
  vonageConnectNccoJson,
} from '../src/telephony/answer/index.js';
import {
  MIN_SECRET_BYTES,
  STREAM_TOKEN_PARAMETER,
  createStreamToken,
  streamTokenFromHex,
  streamTokenToHex,
  verifyStreamToken,
  verifyStreamTokenParameter,
  verifyTwilioRequest,
  type StreamTokenSecret,
} from '../src/telephony/auth/index.js';
import {
  PROVIDERS,
  createClientSpeechSource,
  createMediaBridge,
  isProviderName,
  type AnyProviderCall,
  type CallCore,
  type ProviderName,
} from '../src/telephony/index.js';

const MEDIA_PATH = '/media';
const ANSWER_PATH = '/answer';
const DEFAULT_PORT = 8080;
const DEFAULT_GREETING = 'Hello! Thanks for calling voicewire. Press any key on your phone.';
/** Providers connect the stream within seconds of the answer; a minute leaves room for a slow network. */
const STREAM_TOKEN_TTL_MS = 60_000;
/** A socket that sends no start within this long is closed. */
const START_TIMEOUT_MS = 10_000;
/** Answer webhooks are a few dozen form fields; anything bigger is refused. */
const MAX_WEBHOOK_BODY_BYTES = 64 * 1024;
/** 32 random bytes: the HMAC-SHA256 key size RFC 2104 recommends for SHA-256. */
const STREAM_SECRET_BYTES = 32;
/** Plivo's extraHeaders names and values take only letters and digits, so the token goes as hex under this name. */
const PLIVO_TOKEN_HEADER = 'vwtoken';

const USAGE = `usage: npx tsx examples/phone-bridge.ts --provider ${PROVIDERS.join('|')} [options]
  --provider P        whose calls connect here (default twilio)
  --host H            listen here (default 127.0.0.1)
  --port N            listen on this port, 0 for any (default ${DEFAULT_PORT})
  --base-url URL      the voice service (default: VOICEWIRE_BASE_URL, else the local service in-process)
  --api-key KEY       its API key (default: VOICEWIRE_API_KEY)
  --greeting TEXT     what the bridge says when a call starts
  --auth-token T      Twilio only: verify X-Twilio-Signature with this auth token (default: TWILIO_AUTH_TOKEN)
  --public-url URL    the https:// origin the provider calls (behind a tunnel or proxy); also names the wss:// stream
  --stream-secret S   key for per-call stream tokens, shared by every replica (default: VOICEWIRE_STREAM_SECRET, else random)
  --barge-in          the caller's voice interrupts the bot (a VAD on the caller's audio)
  --help              print this
`;

/** What a bridge built on this one fixes (examples/twilio-bridge.ts: Twilio, `POST /twiml`, barge-in on). */
export interface BridgeVariant {
  /** The one provider served (`--provider` is then ignored). */
  provider?: ProviderName;
  /** Where the answer document is served. @defaultValue '/answer' */
  answerPath?: string;
  /** Methods the answer path takes. @defaultValue POST and GET */
  answerMethods?: readonly string[];
  /** Barge-in by voice always on. @defaultValue only with `--barge-in` */
  bargeIn?: boolean;
  /** Printed by `--help`. */
  usage?: string;
}

interface BridgeConfig {
  provider: ProviderName;
  answerPath: string;
  /** Twilio auth token; null = the Twilio webhook is not verified. */
  authToken: string | null;
  publicUrl: string | undefined;
  streamSecret: StreamTokenSecret;
  greeting: string;
}

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

/** The answer document for one call: content type and body, or a status to refuse with. */
async function answerDocument(req: IncomingMessage, config: BridgeConfig, log: (line: string) => void): Promise<[number, string, string]> {
  const body = req.method === 'POST' ? await readBody(req, MAX_WEBHOOK_BODY_BYTES) : Buffer.alloc(0);
  if (body === null) return [413, 'text/plain', 'Too large\n'];
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  let params = req.method === 'POST' ? new URLSearchParams(body.toString('utf8')) : query;
  const url = mediaUrl(req, config.publicUrl);
  const token = (callId?: string | null): string =>
    createStreamToken({
      secret: config.streamSecret,
      ...(callId !== undefined && callId !== null && callId !== '' ? { callId } : {}),
      ttlMs: STREAM_TOKEN_TTL_MS,
      now: Date.now(),
    });
  switch (config.provider) {
    case 'twilio': {
      if (config.authToken !== null) {
        try {
          params = verifyTwilioRequest(req, body, {
            authToken: config.authToken,
            ...(config.publicUrl !== undefined ? { publicUrl: config.publicUrl } : {}),
          });
        } catch (err) {
          if (!(err instanceof TelephonyAuthError)) throw err;
          log(`refused ${config.answerPath}: ${err.code}`);
          return [403, 'text/plain', 'Forbidden\n'];
        }
      }
      const parameters = { greeting: config.greeting, [STREAM_TOKEN_PARAMETER]: token(params.get('CallSid')) };
      return [200, 'text/xml', twimlConnectStream({ url, parameters })];
    }
    case 'telnyx':
      return [200, 'text/xml', texmlConnectStream({ url, parameters: { greeting: config.greeting, [STREAM_TOKEN_PARAMETER]: token() } })];
    case 'plivo':
      return [200, 'text/xml', plivoStreamXml({ url, extraHeaders: { [PLIVO_TOKEN_HEADER]: streamTokenToHex(token()) } })];
    case 'vonage': {
      const uuid = query.get('uuid') ?? '';
      const headers = { [STREAM_TOKEN_PARAMETER]: token(uuid), ...(uuid !== '' ? { uuid } : {}) };
      return [200, 'application/json', vonageConnectNccoJson({ uri: url, rate: 16000, headers })];
    }
    case 'exotel':
      return [
        200,
        'application/json',
        JSON.stringify({ url: exotelStreamUrl({ url, parameters: { [STREAM_TOKEN_PARAMETER]: token() } }) }),
      ];
  }
}

/** Checks the per-call token the answer document issued; throws a TelephonyAuthError when it is wrong. */
function checkStreamToken(call: CallCore<unknown>, config: BridgeConfig): void {
  const start = call.callStart!;
  const params = start.customParameters;
  // The token is bound to the call where the id we put in it comes back in the start (Twilio's CallSid, Vonage's uuid).
  const bound = config.provider === 'twilio' || config.provider === 'vonage';
  const options = { secret: config.streamSecret, now: Date.now(), ...(bound ? { callId: start.callId } : {}) };
  if (config.provider !== 'plivo') {
    verifyStreamTokenParameter(params, options);
    return;
  }
  const hex = params[PLIVO_TOKEN_HEADER];
  if (hex === undefined || hex === '')
    verifyStreamTokenParameter(params, { ...options, name: PLIVO_TOKEN_HEADER }); // throws MISSING
  else verifyStreamToken(streamTokenFromHex(hex), options);
}

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

function answerCall(anyCall: AnyProviderCall, config: BridgeConfig, log: (line: string) => void): void {
  const call = anyCall as CallCore<unknown>;
  let authorized = false;
  const startTimer = setTimeout(() => {
    log('closing a stream that sent no start');
    call.close();
  }, START_TIMEOUT_MS);
  call.on('start', () => {
    clearTimeout(startTimer);
    const start = call.callStart!;
    try {
      checkStreamToken(call, config);
    } catch (err) {
      if (!(err instanceof TelephonyAuthError)) throw err;
      log(`refused stream for call ${start.callId || '(no id)'}: ${err.code}`);
      call.close();
      return;
    }
    authorized = true;
    log(`${config.provider} call ${start.callId || '(no id)'} started (stream ${start.streamId || '-'}, ${JSON.stringify(start.format)})`);
    const greeting = start.customParameters['greeting'] ?? config.greeting;
    void call.speak(greeting).then((r) => log(`greeting ${r.status}: heard "${r.heardText}"`));
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

function reply(res: ServerResponse, [status, type, body]: [number, string, string]): void {
  res.writeHead(status, { 'content-type': type }).end(body);
}

/** Runs the bridge with command-line `argv`, as `variant` fixes it; resolves once it listens. */
export async function runPhoneBridge(argv: string[], variant: BridgeVariant = {}): Promise<void> {
  const answerPath = variant.answerPath ?? ANSWER_PATH;
  const answerMethods = variant.answerMethods ?? ['POST', 'GET'];
  const { values } = parseArgs({
    args: argv,
    options: {
      provider: { type: 'string', default: 'twilio' },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: String(DEFAULT_PORT) },
      'base-url': { type: 'string' },
      'api-key': { type: 'string' },
      greeting: { type: 'string', default: DEFAULT_GREETING },
      'auth-token': { type: 'string' },
      'public-url': { type: 'string' },
      'stream-secret': { type: 'string' },
      'barge-in': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help === true) {
    process.stdout.write(variant.usage ?? USAGE);
    return;
  }
  const provider = variant.provider ?? values.provider;
  if (!isProviderName(provider)) throw new Error(`--provider must be one of ${PROVIDERS.join(', ')}`);
  const log = (line: string): void => void process.stdout.write(`${line}\n`);
  const authToken = provider === 'twilio' ? (values['auth-token'] ?? process.env['TWILIO_AUTH_TOKEN'] ?? '') : '';
  const publicUrl = values['public-url'];
  if (publicUrl !== undefined && !/^https?:\/\/[^/]+/.test(publicUrl)) throw new Error('--public-url must be an http(s):// URL');
  const sharedSecret = values['stream-secret'] ?? process.env['VOICEWIRE_STREAM_SECRET'] ?? '';
  if (sharedSecret !== '' && Buffer.byteLength(sharedSecret) < MIN_SECRET_BYTES) {
    throw new Error(`--stream-secret must be at least ${MIN_SECRET_BYTES} bytes`);
  }
  const config: BridgeConfig = {
    provider,
    answerPath,
    authToken: authToken === '' ? null : authToken,
    publicUrl,
    streamSecret: sharedSecret !== '' ? sharedSecret : randomBytes(STREAM_SECRET_BYTES),
    greeting: values.greeting,
  };
  if (provider === 'twilio' && config.authToken === null) {
    process.stderr.write(`warning: no --auth-token (nor TWILIO_AUTH_TOKEN): ${answerPath} is unauthenticated\n`);
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
    if (req.url?.startsWith(answerPath) === true && answerMethods.includes(req.method ?? '')) {
      answerDocument(req, config, log).then(
        (doc) => reply(res, doc),
        (err: unknown) => {
          log(`${answerPath} failed: ${(err as Error).message}`);
          if (!res.headersSent) res.writeHead(500);
          res.end();
        },
      );
      return;
    }
    res.writeHead(404).end();
  });
  const bridge = await createMediaBridge({
    provider,
    server: http,
    path: MEDIA_PATH,
    source,
    bargeIn: variant.bargeIn === true || values['barge-in'],
    onCall: (call) => answerCall(call, config, log),
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(Number(values.port), values.host, resolve);
  });
  const address = http.address() as { address: string; port: number };
  log(`${provider} bridge: ws://${address.address}:${address.port}${MEDIA_PATH} (answer document at ${answerPath})`);

  const stop = async (): Promise<void> => {
    await bridge.close();
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await service?.close();
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

/** Run as a script (not imported by another example). */
const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  runPhoneBridge(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exitCode = 1;
  });
}
