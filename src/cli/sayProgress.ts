/**
 * The progress display of `voicewire say --out` for long inputs, on stderr: a bar redrawn in place
 * on a terminal, a line per quarter otherwise.
 */
import type { TextOutput } from '../captions/CaptionRenderer.js';

/** Inputs with fewer words than this (≈ 5 s of speech at 150 words/min) get no progress bar. */
export const PROGRESS_MIN_WORDS = 12;
const BAR_WIDTH = 24;
const REDRAW_MS = 100;
const QUARTER = 0.25;
const CLEAR_LINE = '\r\x1b[2K';

export interface Progress {
  /** `fraction` 0..1 of the input done, `seconds` of audio so far. */
  update(fraction: number, seconds: number): void;
  /** Clears the bar so another line can be printed on the same terminal. */
  clear(): void;
  /** Draws the bar again after such a line. */
  redraw(): void;
  done(): void;
}

export function createProgress(out: TextOutput & { isTTY?: boolean }, now: () => number): Progress {
  let shown = false;
  let lastDraw = -Infinity;
  let lastQuarter = 0;
  let state = { fraction: 0, seconds: 0 };
  const draw = (): void => {
    const filled = Math.round(state.fraction * BAR_WIDTH);
    out.write(
      `${CLEAR_LINE}[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}]` +
        ` ${Math.floor(state.fraction * 100)}%  ${state.seconds.toFixed(1)} s`,
    );
    shown = true;
  };
  return {
    update(fraction, seconds) {
      state = { fraction: Math.min(1, Math.max(0, fraction)), seconds };
      if (out.isTTY) {
        if (now() - lastDraw >= REDRAW_MS) {
          lastDraw = now();
          draw();
        }
        return;
      }
      const quarter = Math.floor(state.fraction / QUARTER);
      if (quarter > lastQuarter && state.fraction < 1) {
        lastQuarter = quarter;
        out.write(`progress ${quarter * 25}%  ${seconds.toFixed(1)} s\n`);
      }
    },
    clear() {
      if (shown && out.isTTY) out.write(CLEAR_LINE);
    },
    redraw() {
      if (shown && out.isTTY) draw();
    },
    done() {
      if (shown && out.isTTY) out.write(CLEAR_LINE);
      shown = false;
    },
  };
}

/** A progress that shows nothing. */
export const NO_PROGRESS: Progress = { update() {}, clear() {}, redraw() {}, done() {} };
