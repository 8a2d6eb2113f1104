/**
 * Finding a sound output and a player program for it, without ever loading an audio library
 * in-process: `speaker` aborts the whole process (SIGABRT inside ALSA) when no card exists, which
 * no try/catch can stop (see native-notes/speaker.md). So we look for a device the way the OS
 * shows it, then play through a child process that may fail on its own.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A player program reading raw s16le PCM on stdin. */
export interface PlayerCommand {
  /** Short name (`aplay`, `paplay`, `ffplay`, `play`, or `custom`). */
  name: string;
  command: string;
  /** Arguments for the given stream format. */
  args(format: { sampleRate: number; channels: number }): string[];
  /** Audio the player holds before it is heard (its output buffer), in ms. */
  latencyMs: number;
  /**
   * Text the player prints on stderr once it reads stdin (a custom player that takes long to
   * start, e.g. a Node script wrapping `speaker`). Audio is held back, and the playhead not
   * started, until it appears.
   */
  readyText?: string;
}

export type AudioOutputCheck = { ok: true; player: PlayerCommand; device: string } | { ok: false; reason: string };

export interface DetectOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** @defaultValue '/proc/asound/cards' */
  cardsPath?: string;
  /** Finds a program on PATH (tests replace it). */
  which?: (command: string) => string | null;
}

/** Environment variable naming a custom player command line (e.g. a test stand-in). */
export const PLAYER_ENV = 'VOICEWIRE_PLAYER';
/** Environment variable giving that custom player's buffer latency in ms. */
export const PLAYER_LATENCY_ENV = 'VOICEWIRE_PLAYER_LATENCY_MS';
/** Environment variable giving the text that custom player prints on stderr when ready. */
export const PLAYER_READY_ENV = 'VOICEWIRE_PLAYER_READY';
export const DEFAULT_CARDS_PATH = '/proc/asound/cards';
/** Output buffer we ask of the players that take one (aplay, paplay), in ms. */
export const PLAYER_BUFFER_MS = 100;
/** ffplay's SDL output buffer plus its own queue, measured loosely. */
const FFPLAY_LATENCY_MS = 250;
const SOX_LATENCY_MS = 150;
const US_PER_MS = 1000;

const ALSA_CARD_LINE = /^\s*\d+\s+\[/m;

export const BUILTIN_PLAYERS: Record<string, PlayerCommand> = {
  aplay: {
    name: 'aplay',
    command: 'aplay',
    args: ({ sampleRate, channels }) => [
      '-q',
      '-t',
      'raw',
      '-f',
      'S16_LE',
      '-r',
      String(sampleRate),
      '-c',
      String(channels),
      `--buffer-time=${PLAYER_BUFFER_MS * US_PER_MS}`,
      '-',
    ],
    latencyMs: PLAYER_BUFFER_MS,
  },
  paplay: {
    name: 'paplay',
    command: 'paplay',
    args: ({ sampleRate, channels }) => [
      '--raw',
      '--format=s16le',
      `--rate=${sampleRate}`,
      `--channels=${channels}`,
      `--latency-msec=${PLAYER_BUFFER_MS}`,
    ],
    latencyMs: PLAYER_BUFFER_MS,
  },
  ffplay: {
    name: 'ffplay',
    command: 'ffplay',
    args: ({ sampleRate, channels }) => [
      '-nodisp',
      '-autoexit',
      '-loglevel',
      'error',
      '-f',
      's16le',
      '-ar',
      String(sampleRate),
      '-ac',
      String(channels),
      '-i',
      '-',
    ],
    latencyMs: FFPLAY_LATENCY_MS,
  },
  play: {
    name: 'play',
    command: 'play',
    args: ({ sampleRate, channels }) => [
      '-q',
      '-t',
      'raw',
      '-e',
      'signed',
      '-b',
      '16',
      '-r',
      String(sampleRate),
      '-c',
      String(channels),
      '-',
    ],
    latencyMs: SOX_LATENCY_MS,
  },
};

/** Looks a program up on PATH without spawning anything. */
export function whichSync(command: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (command.includes('/')) return isExecutable(command) ? command : null;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const full = join(dir, command);
    if (isExecutable(full)) return full;
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Parses `VOICEWIRE_PLAYER`: a command line split on whitespace (no shell is involved). */
export function customPlayer(commandLine: string, latencyMs: number, readyText?: string): PlayerCommand {
  const [command = '', ...fixed] = commandLine.trim().split(/\s+/);
  return { name: 'custom', command, args: () => [...fixed], latencyMs, ...(readyText ? { readyText } : {}) };
}

/**
 * Is there a sound output, and which player can reach it?
 *
 * Order: `VOICEWIRE_PLAYER` (trusted as is) → a PulseAudio/PipeWire server (paplay, else ffplay)
 * → an ALSA card listed in /proc/asound/cards (aplay, else ffplay or sox `play`) → macOS (ffplay,
 * sox `play`). Nothing found → `{ok: false, reason}`, a one-line explanation.
 */
export function detectAudioOutput(options: DetectOptions = {}): AudioOutputCheck {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const which = options.which ?? ((c: string) => whichSync(c, env));
  const custom = env[PLAYER_ENV];
  if (custom !== undefined && custom.trim() !== '') {
    const latency = Number(env[PLAYER_LATENCY_ENV] ?? '0');
    const player = customPlayer(custom, Number.isFinite(latency) && latency >= 0 ? latency : 0, env[PLAYER_READY_ENV]);
    return { ok: true, player, device: PLAYER_ENV };
  }
  const pick = (names: string[]): PlayerCommand | null => {
    for (const n of names) if (which(n) !== null) return BUILTIN_PLAYERS[n] ?? null;
    return null;
  };

  const runtimeDir = env.XDG_RUNTIME_DIR;
  const pulse = env.PULSE_SERVER !== undefined || (runtimeDir !== undefined && existsSync(join(runtimeDir, 'pulse', 'native')));
  if (pulse) {
    const player = pick(['paplay', 'ffplay']);
    if (player) return { ok: true, player, device: 'pulseaudio' };
  }
  if (platform === 'linux') {
    const cards = readCards(options.cardsPath ?? DEFAULT_CARDS_PATH);
    if (cards !== null && ALSA_CARD_LINE.test(cards)) {
      const player = pick(['aplay', 'play', 'ffplay']);
      if (player) return { ok: true, player, device: 'alsa' };
      return { ok: false, reason: 'a sound card exists but no player was found (install alsa-utils for aplay, or ffmpeg for ffplay)' };
    }
    return { ok: false, reason: 'no sound device found (no card in /proc/asound/cards and no PulseAudio server)' };
  }
  if (platform === 'darwin') {
    const player = pick(['ffplay', 'play']);
    if (player) return { ok: true, player, device: 'coreaudio' };
    return { ok: false, reason: 'no player found (install ffmpeg for ffplay, or sox for play)' };
  }
  return { ok: false, reason: `playback is not supported on ${platform} without ${PLAYER_ENV}` };
}

function readCards(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
