/**
 * Progress of `voicewire latency` on stderr: a bar redrawn in place on a terminal (with the
 * running first-audio p50 and the failures so far), a plain line per tenth of the run otherwise.
 */
import type { LatencyRecord } from '../latency/types.js';

const BAR_WIDTH = 24;
const REDRAW_MS = 100;
const LINES_PER_RUN = 10;
const CLEAR_LINE = '\r\x1b[2K';

export interface LatencyProgress {
  update(done: number, total: number, record: LatencyRecord | null): void;
  /** Clears the bar before other output. */
  done(): void;
}

export function createLatencyProgress(out: { write(s: string): unknown; isTTY?: boolean }, now: () => number): LatencyProgress {
  let lastDraw = -Infinity;
  let lastStep = 0;
  let failed = 0;
  let shown = false;
  const firstAudio: number[] = [];
  const median = (): string => {
    if (firstAudio.length === 0) return '-';
    const sorted = [...firstAudio].sort((a, b) => a - b);
    return `${Math.round(sorted[Math.ceil(sorted.length / 2) - 1]!)} ms`;
  };
  return {
    update(done, total, record) {
      if (record !== null) {
        if (record.firstAudioByteMs !== null) firstAudio.push(record.firstAudioByteMs);
        if (record.failure !== null) failed++;
      }
      const tail = `first audio p50 ${median()}${failed > 0 ? `, ${failed} failed` : ''}`;
      if (out.isTTY === true) {
        if (now() - lastDraw < REDRAW_MS && done < total) return;
        lastDraw = now();
        const filled = Math.round((done / total) * BAR_WIDTH);
        out.write(`${CLEAR_LINE}[${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}] ${done}/${total}  ${tail}`);
        shown = true;
        return;
      }
      const step = Math.floor((done / total) * LINES_PER_RUN);
      if (step > lastStep) {
        lastStep = step;
        out.write(`progress ${done}/${total}  ${tail}\n`);
      }
    },
    done() {
      if (shown) out.write(CLEAR_LINE);
      shown = false;
    },
  };
}
