/**
 * The files the service streams are valid for ffprobe / opusinfo, and ffmpeg decodes them to the
 * same duration (±1 codec frame) as voicewire's engine. Skips when ffmpeg/ffprobe are absent.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AudioFormat } from '../../src/codec/types.js';
import { startLocalService, TTS_PATH, type LocalService } from '../../src/service/index.js';
import { decodeWithEngine } from './engineDecode.js';
import { parseSse } from './helpers.js';

const has = (tool: string): boolean => spawnSync(tool, ['-version'], { stdio: 'ignore' }).status === 0;
const HAVE_FFMPEG = has('ffprobe') && has('ffmpeg');
const HAVE_OPUSINFO = spawnSync('opusinfo', ['-V'], { stdio: 'ignore' }).status === 0;
if (!HAVE_FFMPEG) console.warn('standardTools.test.ts: ffmpeg/ffprobe not found, skipping');

let svc: LocalService;
let dir: string;
beforeAll(async () => {
  if (!HAVE_FFMPEG) return;
  svc = await startLocalService();
  dir = mkdtempSync(join(tmpdir(), 'vw-tools-'));
});
afterAll(async () => {
  if (!HAVE_FFMPEG) return;
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

async function fetchBody(format: AudioFormat, sampleRate: number): Promise<Uint8Array> {
  const res = await fetch(`${svc.baseUrl}${TTS_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.token}` },
    body: JSON.stringify({ text: 'Standard tools read this stream. Twice over!', format, sample_rate: sampleRate }),
  });
  return new Uint8Array(await res.arrayBuffer());
}

const CASES: [AudioFormat, number, string, number][] = [
  ['wav', 22050, 'pcm_s16le', 1],
  ['mp3', 44100, 'mp3', 1152],
  ['mp3', 16000, 'mp3', 576],
  ['opus', 48000, 'opus', 960],
  ['opus', 16000, 'opus', 960],
];

describe.skipIf(!HAVE_FFMPEG)('standard tools', () => {
  it.each(CASES)("%s at %s Hz: ffprobe sees %s, ffmpeg decodes the engine's duration ±1 frame", async (format, rate, codec, frame) => {
    const sse = await fetchBody(format, rate);
    const events = parseSse(Buffer.from(sse).toString());
    const audio = Buffer.concat(events.map((e) => Buffer.from(e.audio_base64, 'base64')));
    const file = join(dir, `t-${rate}.${format === 'opus' ? 'ogg' : format}`);
    writeFileSync(file, audio);
    const probe = JSON.parse(
      execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_name,sample_rate,channels', '-of', 'json', file]).toString(),
    );
    expect(probe.streams[0]).toMatchObject({ codec_name: codec, channels: 1 });
    const pcm = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-f', 's16le', '-ac', '1', '-']);
    const ffRate = Number(probe.streams[0].sample_rate);
    const ffSec = pcm.length / 2 / ffRate;
    const engine = await decodeWithEngine(new Blob([sse]).stream(), format);
    // mp3: both trim the start from the LAME tag (576 + 529); neither can trim the end padding,
    // which a streaming tag cannot carry. opus: both apply pre-skip and the EOS granule.
    const diff = Math.abs(ffSec - engine.durationSec);
    expect(diff).toBeLessThanOrEqual(frame / ffRate + 1e-6);
    if (format === 'opus' && HAVE_OPUSINFO) {
      const info = spawnSync('opusinfo', [file], { encoding: 'utf8' });
      expect(info.status).toBe(0);
      expect(info.stdout + info.stderr).not.toMatch(/WARNING|ERROR/i);
      expect(info.stdout).toContain('Pre-skip: 312');
    }
  });
});
