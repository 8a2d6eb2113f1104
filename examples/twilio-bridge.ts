/**
 * A runnable Twilio Media Streams bridge.
 *
 *   npx tsx examples/twilio-bridge.ts [--host 127.0.0.1] [--port 8080] [--base-url URL --api-key KEY]
 *
 * - `POST /twiml` answers Twilio's voice webhook with `<Connect><Stream>` pointing at `/media`,
 *   passing a `greeting` custom parameter (put the bridge behind a TLS tunnel for a real number).
 * - On `start` it speaks the `greeting` custom parameter; each DTMF digit interrupts whatever is
 *   playing and answers with speech. Word events print when the caller heard the word.
 * - With no `--base-url` (nor VOICEWIRE_BASE_URL) it starts the local voice service in-process.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import { createClient } from '../src/client/createClient.js';
import { startLocalService, type LocalService } from '../src/service/index.js';
import { createClientSpeechSource, createTwilioBridge, type TwilioCall } from '../src/telephony/index.js';

const MEDIA_PATH = '/media';
const DEFAULT_PORT = 8080;
const DEFAULT_GREETING = 'Hello! Thanks for calling voicewire. Press any key on your phone.';

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

function escapeXml(s: string): string {
  return s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function twiml(req: IncomingMessage, res: ServerResponse, greeting: string): void {
  const host = req.headers['x-forwarded-host'] ?? req.headers.host ?? '127.0.0.1';
  const scheme = req.headers['x-forwarded-proto'] === 'https' ? 'wss' : 'ws';
  res.writeHead(200, { 'content-type': 'text/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>
<Response><Connect><Stream url="${escapeXml(`${scheme}://${String(host)}${MEDIA_PATH}`)}">
<Parameter name="greeting" value="${escapeXml(greeting)}"/>
</Stream></Connect></Response>`);
}

function answer(call: TwilioCall, log: (line: string) => void): void {
  call.on('start', (info) => {
    log(`call ${info.callSid} started (stream ${info.streamSid})`);
    void call.speak(info.customParameters['greeting'] ?? DEFAULT_GREETING).then((r) => log(`greeting ${r.status}: heard "${r.heardText}"`));
  });
  call.on('word', (w) => log(`  heard: ${w.text}`));
  call.on('dtmf', ({ digit }) => {
    const cut = call.interrupt();
    if (cut !== null) log(`barge-in after "${cut.heardText}" (${cut.cut.length} words cut)`);
    void call.speak(`You pressed ${DIGIT_WORDS[digit] ?? digit}.`);
  });
  call.on('warning', (w) => log(`warning: ${w.message}`));
  call.on('close', ({ reason }) => log(`call ended (${reason})`));
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
    },
  });
  const log = (line: string): void => void process.stdout.write(`${line}\n`);
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
    if (req.method === 'POST' && req.url?.startsWith('/twiml') === true) return twiml(req, res, values.greeting);
    res.writeHead(404).end();
  });
  const bridge = await createTwilioBridge({ server: http, path: MEDIA_PATH, source, onCall: (call) => answer(call, log) });
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
