import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The members of SseFastPathSeam (src/sse/fastPathSeam.ts): only the seam may reach them. */
const SEAM_MEMBERS = ['inFirstDataLine', 'pendingData', 'pendingDataLength', 'dataRoom', 'takePendingData', 'skipData', 'restoreData'];
const EVENTS_DIR = join(import.meta.dirname, '../../src/events');

function eventsSources(): { file: string; text: string }[] {
  return readdirSync(EVENTS_DIR)
    .filter((f) => f.endsWith('.ts'))
    .map((file) => ({ file, text: readFileSync(join(EVENTS_DIR, file), 'utf8') }));
}

describe('the SSE fast-path seam', () => {
  it('the interface names exactly the members listed here', () => {
    const text = readFileSync(join(import.meta.dirname, '../../src/sse/fastPathSeam.ts'), 'utf8');
    const body = text.slice(text.indexOf('export interface SseFastPathSeam'));
    const names = [...body.matchAll(/^ {2}(?:readonly )?(\w+)[(:]/gm)].map((m) => m[1]);
    expect(names.sort()).toEqual([...SEAM_MEMBERS].sort());
  });

  it('the base64 stage holds the framer as SseFastPathSeam and never names the SseFramer class', () => {
    const text = readFileSync(join(EVENTS_DIR, 'Base64Stage.ts'), 'utf8');
    expect(text).toMatch(/import type \{ SseFastPathSeam \} from '\.\.\/sse\/fastPathSeam\.js'/);
    expect(text).not.toMatch(/\bSseFramer\b/);
  });

  it('no other events module touches a seam member', () => {
    const offenders: string[] = [];
    for (const { file, text } of eventsSources()) {
      if (file === 'Base64Stage.ts') continue;
      for (const m of SEAM_MEMBERS) {
        if (new RegExp(`\\.${m}\\b`).test(text)) offenders.push(`${file}: .${m}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
