/**
 * Packaging (slow but bounded: about a minute, mostly `npm pack`'s build and `npm install`): the
 * package as a user meets it. The tarball `npm pack` makes installs into a fresh project; there
 * every entry of the exports map imports from an `.mjs` file and `require()`s from a `.cjs` file,
 * a strict TypeScript consumer compiles against the shipped declarations (`skipLibCheck: false`,
 * `exactOptionalPropertyTypes`, under `moduleResolution` node16 and bundler, with no `@types/*`
 * but `@types/node`), and `npx voicewire say … --out x.wav` writes a valid WAV.
 *
 * Cache first: the dependencies come from the npm cache where they are there (`--prefer-offline`).
 * Not `--offline`: an `npm install` from a lockfile caches tarballs but not the registry's package
 * documents that resolving the tarball's own ranges needs, so on a fresh machine an offline install
 * fails with ENOTCACHED. Optional native addons are left out (`--omit=optional --ignore-scripts`),
 * so this also shows the package works on the wasm fallbacks alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const STEP_TIMEOUT_MS = 150_000;
const RUN_TIMEOUT_MS = 60_000;
/** A test that runs child processes (npx, node, tsc): bounded by their own timeouts, with slack. */
const TEST_TIMEOUT_MS = 2 * RUN_TIMEOUT_MS;
/** One export each entry must have, so an empty or wrong module cannot pass for it. */
const MARKERS: Record<string, string> = {
  voicewire: 'createSpeechPipeline',
  'voicewire/client': 'createClient',
  'voicewire/webhooks': 'verifyWebhookSignature',
  'voicewire/service': 'startLocalService',
  'voicewire/telephony': 'attachTwilioMediaStream',
  'voicewire/latency': 'measureLatency',
};
/** What lives behind a subpath only: the root entry must not load it (import time, `ws`). */
const NOT_AT_ROOT = [
  'createClient',
  'createTwilioBridge',
  'attachTwilioMediaStream',
  'createWebhookReceiver',
  'RedisDedupStore',
  'measureLatency',
];

let tmp = '';
let project = '';
let shipped: string[] = [];
/** 'voicewire', 'voicewire/client', … and 'voicewire/package.json', from the installed manifest. */
let specifiers: string[] = [];

function run(command: string, args: string[], cwd = project) {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'vw-pack-'));
  // Pack a copy of the package, so its build never rewrites the dist/ other tests may be
  // reading. `npm pack` runs `prepare` (the build) first: a tree that does not build fails here.
  const pkg = join(tmp, 'package');
  mkdirSync(pkg);
  for (const entry of [
    'package.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'README.md',
    'bin',
    'src',
    'native-notes',
    'examples',
    'docs',
    'models',
  ]) {
    if (existsSync(join(root, entry))) cpSync(join(root, entry), join(pkg, entry), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'), 'dir');
  const pack = spawnSync(NPM, ['pack', '--pack-destination', tmp, '--json'], { cwd: pkg, encoding: 'utf8', timeout: STEP_TIMEOUT_MS });
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stderr}\n${pack.stdout}`);
  const [packed] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  shipped = packed!.files.map((f) => f.path);

  project = join(tmp, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'vw-pack-check', version: '1.0.0', private: true, type: 'module' }));
  const install = spawnSync(
    NPM,
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=optional', join(tmp, packed!.filename)],
    {
      cwd: project,
      encoding: 'utf8',
      timeout: STEP_TIMEOUT_MS,
    },
  );
  if (install.status !== 0) throw new Error(`npm install failed:\n${install.stderr}`);
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'voicewire', 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
  };
  specifiers = Object.keys(manifest.exports).map((k) => (k === '.' ? 'voicewire' : `voicewire/${k.slice(2)}`));
}, 300_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('packaging (slow, bounded): the packed tarball installed into a fresh project', () => {
  it('ships the build, the CLI and the README’s capture, and no tests, sources or source maps', () => {
    expect(shipped).toContain('bin/voicewire.js');
    expect(shipped).toContain('dist/cli/main.js');
    expect(shipped).toContain('dist/index.d.ts');
    expect(shipped).toContain('examples/hello.wav.sse'); // the README's `decode` example
    expect(shipped).toContain('docs/service-interface.md'); // what the declarations' @see comments name
    expect(shipped).toContain('examples/hello.txt'); // and the text it was spoken from
    expect(shipped).toContain('models/silero_vad_v5.onnx'); // the VAD's network, found beside dist/
    expect(shipped).toContain('models/silero_vad_v5.LICENSE');
    expect(shipped.filter((f) => f.endsWith('.map'))).toEqual([]); // maps would point at src/, not shipped
    expect(shipped.filter((f) => f.startsWith('test/') || f.startsWith('src/'))).toEqual([]);
    expect(specifiers).toEqual(expect.arrayContaining(Object.keys(MARKERS)));
  });

  it('npx voicewire --help, say --help and --version run from the installed package', { timeout: TEST_TIMEOUT_MS }, () => {
    const help = execFileSync('npx', ['--no-install', 'voicewire', '--help'], { cwd: project, encoding: 'utf8', timeout: RUN_TIMEOUT_MS });
    expect(help).toContain('usage: voicewire <command>');
    const sayHelp = execFileSync('npx', ['--no-install', 'voicewire', 'say', '--help'], {
      cwd: project,
      encoding: 'utf8',
      timeout: RUN_TIMEOUT_MS,
    });
    expect(sayHelp).toContain('--format opus|mp3|wav|pcm');
    const version = execFileSync('npx', ['--no-install', 'voicewire', '--version'], {
      cwd: project,
      encoding: 'utf8',
      timeout: RUN_TIMEOUT_MS,
    });
    expect(version).toBe(`${(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version}\n`);
  });

  it('npx voicewire say "…" --out x.wav writes a valid WAV of real speech', { timeout: TEST_TIMEOUT_MS }, () => {
    const r = run('npx', ['--no-install', 'voicewire', 'say', 'Hello from the installed package.', '--out', 'x.wav']);
    expect(r.status, r.out).toBe(0);
    const wav = readFileSync(join(project, 'x.wav'));
    expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.toString('latin1', 8, 16)).toBe('WAVEfmt ');
    const channels = wav.readUInt16LE(22);
    const sampleRate = wav.readUInt32LE(24);
    const blockAlign = wav.readUInt16LE(32);
    expect(channels).toBeGreaterThan(0);
    expect(sampleRate).toBeGreaterThanOrEqual(8000);
    const fmtEnd = 20 + wav.readUInt32LE(16);
    expect(wav.toString('latin1', fmtEnd, fmtEnd + 4)).toBe('data');
    const dataBytes = wav.readUInt32LE(fmtEnd + 4);
    expect(dataBytes).toBe(wav.length - fmtEnd - 8);
    expect(dataBytes % blockAlign).toBe(0);
    expect(dataBytes / blockAlign / sampleRate).toBeGreaterThan(0.5); // seconds of audio
  });

  it('every entry imports from an .mjs file, and the root entry holds none of the subpaths’ APIs', { timeout: TEST_TIMEOUT_MS }, () => {
    const lines = specifiers.map((s, i) =>
      s.endsWith('.json')
        ? `await import(${JSON.stringify(s)}, { with: { type: 'json' } });`
        : `const m${i} = await import(${JSON.stringify(s)});` +
          ` if (typeof m${i}[${JSON.stringify(MARKERS[s])}] !== 'function') throw new Error(${JSON.stringify(`${s}: no ${MARKERS[s]}`)});`,
    );
    lines.push(
      `const root = await import('voicewire'); const leaked = ${JSON.stringify(NOT_AT_ROOT)}.filter((k) => k in root);` +
        ` if (leaked.length) throw new Error('at the root: ' + leaked);`,
    );
    writeFileSync(join(project, 'entries.mjs'), lines.join('\n') + '\nconsole.log("ok");\n');
    const r = run(process.execPath, ['entries.mjs']);
    expect(r.status, r.out).toBe(0);
  });

  it('every entry require()s from a .cjs file (require(esm), no second build)', { timeout: TEST_TIMEOUT_MS }, () => {
    const lines = specifiers.map((s) =>
      s.endsWith('.json')
        ? `require(${JSON.stringify(s)});`
        : `if (typeof require(${JSON.stringify(s)})[${JSON.stringify(MARKERS[s])}] !== 'function')` +
          ` throw new Error(${JSON.stringify(`${s}: no ${MARKERS[s]}`)});`,
    );
    lines.push(
      `const { createSpeechPipeline } = require('voicewire'); createSpeechPipeline({ format: 'pcm', sampleRate: 16000 }).destroy();`,
    );
    writeFileSync(join(project, 'entries.cjs'), `'use strict';\n${lines.join('\n')}\nconsole.log('ok');\n`);
    const r = run(process.execPath, ['entries.cjs']);
    expect(r.status, r.out).toBe(0);
    expect(r.out).not.toMatch(/ERR_REQUIRE_(ESM|ASYNC_MODULE)|ERR_PACKAGE_PATH_NOT_EXPORTED/);
  });

  it(
    'barge-in by voice starts its detector thread from the installed package (a Twilio stream on loopback)',
    { timeout: TEST_TIMEOUT_MS },
    () => {
      // The default detectorThread is 'worker': the call's detector loads in dist/…/detectorWorker.js.
      // Without the optional onnxruntime-node (omitted here) it runs the WebRTC VAD there.
      const script = `
import { once } from 'node:events';
import { WebSocket, WebSocketServer } from 'ws';
import { attachTwilioMediaStream } from 'voicewire/telephony';
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
await once(wss, 'listening');
const warnings = [];
const called = new Promise((resolve) => wss.on('connection', (ws) => {
  const call = attachTwilioMediaStream(ws, { bargeIn: { vad: { onNotice: () => {} } } });
  call.on('warning', (w) => warnings.push(w.code));
  resolve(call);
}));
const peer = new WebSocket('ws://127.0.0.1:' + wss.address().port);
await once(peer, 'open');
peer.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
const start = { streamSid: 'MZ1', callSid: 'CA1', accountSid: 'AC', tracks: ['inbound'], customParameters: {},
  mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } };
peer.send(JSON.stringify({ event: 'start', sequenceNumber: '1', streamSid: 'MZ1', start }));
const call = await called;
for (let i = 0; i < 2000 && call.bargeInBackend === null && warnings.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
console.log(JSON.stringify({ backend: call.bargeInBackend, warnings }));
call.close(); peer.close(); wss.close();
`;
      writeFileSync(join(project, 'bargeInThread.mjs'), script);
      const r = run(process.execPath, ['bargeInThread.mjs']);
      expect(r.status, r.out).toBe(0);
      expect(JSON.parse(r.out.trim().split('\n')[0]!)).toEqual({ backend: 'webrtc', warnings: [] });
    },
  );

  for (const resolution of ['node16', 'bundler'] as const) {
    it(
      `a strict TypeScript consumer compiles against the shipped types (moduleResolution ${resolution}, skipLibCheck false)`,
      { timeout: TEST_TIMEOUT_MS },
      () => {
        writeConsumer();
        const tsconfig = `tsconfig.${resolution}.json`;
        writeFileSync(
          join(project, tsconfig),
          JSON.stringify({
            compilerOptions: {
              strict: true,
              exactOptionalPropertyTypes: true,
              noUncheckedIndexedAccess: true,
              skipLibCheck: false,
              noEmit: true,
              target: 'ES2022',
              module: resolution === 'node16' ? 'node16' : 'esnext',
              moduleResolution: resolution,
              types: ['node'],
            },
            files: ['consumer.ts'],
          }),
        );
        const r = run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tsconfig]);
        expect(r.status, r.out).toBe(0);
      },
    );
  }
});

/**
 * A consumer that uses each entry's main API the way the README does. Only `@types/node` is
 * there (linked from this repository): the declarations must need nothing a user does not have.
 */
function writeConsumer(): void {
  const types = join(project, 'node_modules', '@types');
  if (!existsSync(join(types, 'node'))) {
    mkdirSync(types, { recursive: true });
    symlinkSync(join(root, 'node_modules', '@types', 'node'), join(types, 'node'), 'dir');
  }
  writeFileSync(
    join(project, 'consumer.ts'),
    `
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createFrameByteStream, createSpeechPipeline, createWavFileSink, toWebVtt, type WordEvent } from 'voicewire';
import { createClient, type Client } from 'voicewire/client';
import { startLocalService } from 'voicewire/service';
import { attachTwilioMediaStream, createTwilioBridge, type MediaSocket, type TwilioCall } from 'voicewire/telephony';
import { MemoryDedupStore, verifyWebhookSignature } from 'voicewire/webhooks';

export async function speak(text: string): Promise<string> {
  const service = await startLocalService();
  const client: Client = createClient({ baseUrl: service.baseUrl, apiKey: service.token });
  const { stream } = await client.tts.streamWithTimestamps({ text, format: 'opus' }, { output: { encoding: 's16le' } });
  stream.on('word', (w: WordEvent) => console.log(w.start.toFixed(2), w.text));
  await pipeline(stream, createFrameByteStream(), createWriteStream('speech.pcm'));
  await service.close();
  return toWebVtt(stream.alignment.timeline());
}

export function engine(body: NodeJS.ReadableStream): void {
  const speech = createSpeechPipeline({ format: 'opus', output: { sampleRate: 8000, encoding: 'mulaw' } });
  body.pipe(speech).pipe(createWavFileSink('out.wav'));
}

export async function bridge(socket: MediaSocket): Promise<TwilioCall> {
  const b = await createTwilioBridge({ port: 0, onCall: (call) => void call.speak('Hello!') });
  await b.close();
  return attachTwilioMediaStream(socket);
}

export function webhook(rawBody: string, header: string): boolean {
  void new MemoryDedupStore();
  try {
    verifyWebhookSignature({ payload: rawBody, header, secret: 'whsec' });
    return true;
  } catch {
    return false;
  }
}
`,
  );
}
