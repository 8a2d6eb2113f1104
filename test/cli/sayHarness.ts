/** Runs `say` in-process with captured output, and reads back what it wrote. */
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { run, type SayIo } from '../../src/cli/say.js';

export interface SayRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Each stdout write with its wall time (ms, performance.timeOrigin-based). */
  stdoutTimes: Array<{ at: number; text: string }>;
}

export interface HarnessOptions {
  stdoutIsTTY?: boolean;
  /** Fires the SIGINT handler once stdout has this many writes. */
  interruptAfterWrites?: number;
}

export async function runSay(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
  stdinText?: string,
  options: HarnessOptions = {},
): Promise<SayRun> {
  const out: string[] = [];
  const err: string[] = [];
  const stdoutTimes: SayRun['stdoutTimes'] = [];
  const stdin = new PassThrough();
  if (stdinText !== undefined) stdin.end(stdinText);
  let interrupt: (() => void) | null = null;
  const io: SayIo = {
    stdout: {
      write: (s: string) => {
        out.push(s);
        stdoutTimes.push({ at: performance.timeOrigin + performance.now(), text: s });
        if (out.length === options.interruptAfterWrites) interrupt?.();
        return true;
      },
      isTTY: options.stdoutIsTTY ?? false,
      columns: 80,
    },
    stderr: { write: (s: string) => err.push(s), isTTY: false },
    stdin: Object.assign(stdin, { isTTY: stdinText === undefined }),
    env: { PATH: process.env.PATH, ...env },
    onInterrupt: (fn) => {
      interrupt = fn;
      return () => (interrupt = null);
    },
    now: () => performance.now(),
  };
  const code = await run(argv, io);
  return { code, stdout: out.join(''), stderr: err.join(''), stdoutTimes };
}

/** Caption lines `0.31  word` → [{start, text}]. */
export function captionLines(stdout: string): Array<{ start: number; text: string }> {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const m = /^(\d+\.\d\d) {2}(.+)$/.exec(l);
      if (!m) throw new Error(`not a caption line: ${JSON.stringify(l)}`);
      return { start: Number(m[1]), text: m[2]! };
    });
}

export interface WavInfo {
  sampleRate: number;
  channels: number;
  dataBytes: number;
  durationSec: number;
  riffSizeOk: boolean;
}

/** Reads a canonical s16le WAV written by voicewire (44-byte header). */
export function readWavInfo(path: string): WavInfo {
  const b = readFileSync(path);
  if (b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE' || b.toString('latin1', 36, 40) !== 'data') {
    throw new Error(`${path} is not a canonical WAV`);
  }
  const sampleRate = b.readUInt32LE(24);
  const channels = b.readUInt16LE(22);
  const dataBytes = b.readUInt32LE(40);
  return {
    sampleRate,
    channels,
    dataBytes,
    durationSec: dataBytes / (sampleRate * channels * 2),
    riffSizeOk: b.readUInt32LE(4) === b.length - 8 && dataBytes + 44 <= b.length,
  };
}

/** Cue end times of a WebVTT or SRT document. */
export function vttCueEnds(doc: string): number[] {
  return [...doc.matchAll(/--> (\d\d):(\d\d):(\d\d)[.,](\d\d\d)/g)].map(
    (m) => Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4]) / 1000,
  );
}

/** The words of a text as the service's alignment gives them (punctuation stripped). */
export function spokenWords(text: string): string[] {
  return text
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((w) => w !== '');
}
