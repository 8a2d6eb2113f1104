/**
 * `voicewire view <capture.sse> [--format F] [--sample-rate N] --html out.html`: a captured SSE
 * body as a page (waveform, word timeline, a player that highlights each word as it plays).
 * Thin: the page is src/latency/view/.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import type { AudioFormat } from '../codec/types.js';
import { AUDIO_FORMATS } from '../protocol/ttsRequest.js';
import { analyzeCapture, detectCaptureFormat } from '../latency/view/captureView.js';
import { captureViewerHtml } from '../latency/view/viewerHtml.js';
import { EXIT_FAILED, EXIT_IO, EXIT_OK, EXIT_USAGE } from './exitCodes.js';

export const VIEW_USAGE = `usage: voicewire view <capture.sse> [--format opus|mp3|wav|pcm] [--sample-rate N] --html out.html

Writes one self-contained page for a captured speech stream (a body saved by 'latency --record',
or any SSE body of the speech endpoint): the waveform with the word timeline above it (chunk
boundaries dashed, late words orange, revised words outlined in red) and an audio player that
highlights each word as it plays.

  --format F         the request's format (default: recognized from the audio; pcm needs it)
  --sample-rate N    the request's sample_rate (required for pcm)
  --html FILE        the page to write
  -h, --help         this help

exit codes: 0 written; 1 the capture is not a valid stream of that format; 2 usage; 3 I/O.
`;
const PREFIX = 'voicewire view: ';

interface Io {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

export async function run(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const usage = (message: string): number => {
    io.stderr.write(`${PREFIX}${message}\n\n${VIEW_USAGE}`);
    return EXIT_USAGE;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: 'string' },
        'sample-rate': { type: 'string' },
        html: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const v = parsed.values;
  if (v.help) {
    io.stdout.write(VIEW_USAGE);
    return EXIT_OK;
  }
  const [capture, ...extra] = parsed.positionals;
  if (capture === undefined || extra.length > 0) return usage('give one capture file');
  if (v.html === undefined || v.html.trim() === '') return usage('--html out.html is required');
  if (v.format !== undefined && !AUDIO_FORMATS.includes(v.format as AudioFormat))
    return usage(`--format must be one of ${AUDIO_FORMATS.join(', ')}, got ${JSON.stringify(v.format)}`);
  let sampleRate: number | undefined;
  if (v['sample-rate'] !== undefined) {
    sampleRate = Number(v['sample-rate']);
    if (!Number.isInteger(sampleRate) || sampleRate <= 0)
      return usage(`--sample-rate must be a positive integer, got ${JSON.stringify(v['sample-rate'])}`);
  }
  let body: Uint8Array;
  try {
    body = await readFile(capture);
  } catch (err) {
    io.stderr.write(`${PREFIX}cannot read ${capture}: ${(err as Error).message}\n`);
    return EXIT_IO;
  }
  const format = (v.format as AudioFormat | undefined) ?? detectCaptureFormat(body);
  if (format === null) return usage(`cannot tell the format of ${capture} from its audio; give --format (and --sample-rate for pcm)`);
  let page: string;
  try {
    const view = await analyzeCapture(body, format, sampleRate);
    page = captureViewerHtml(view, basename(capture));
  } catch (err) {
    io.stderr.write(`${PREFIX}${capture} is not a valid ${format} speech stream: ${(err as Error).message}\n`);
    return EXIT_FAILED;
  }
  try {
    await writeFile(v.html, page);
  } catch (err) {
    io.stderr.write(`${PREFIX}cannot write ${v.html}: ${(err as Error).message}\n`);
    return EXIT_IO;
  }
  return EXIT_OK;
}
