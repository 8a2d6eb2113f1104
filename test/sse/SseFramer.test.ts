import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseFramer } from '../../src/sse/SseFramer.js';

interface Framed {
  data: string;
  inPlace: boolean;
}

/** Frames `chunks`, recording each message's data and whether it was handed over in place. */
function frame(chunks: Uint8Array[]): Framed[] {
  const out: Framed[] = [];
  const framer = new SseFramer({
    onFrame: (f) => {
      out.push({ data: f.data.toString('utf8', f.dataStart, f.dataStart + f.dataLength), inPlace: chunks.includes(f.data) });
    },
  });
  for (const c of chunks) framer.feed(c);
  framer.end();
  return out;
}

describe('SseFramer', () => {
  it('a long data line lying whole in one Buffer chunk is handed over in place, without a copy', () => {
    const value = `{"audio_base64":"${'A'.repeat(200)}"}`;
    const chunk = Buffer.from(`data: ${value}\n\ndata: x\ndata: y\n\n`);
    expect(frame([chunk])).toEqual([
      { data: value, inPlace: true },
      { data: 'x\ny', inPlace: false }, // two data lines are joined in the framer's own buffer
    ]);
  });

  it('an in-place line whose blank line comes in the next chunk is copied before the chunk is given back', () => {
    const value = 'hello '.repeat(40);
    const first = Buffer.from(`data: ${value}\n`);
    const framer = new SseFramer({ onFrame: (f) => void out.push(f.data.toString('utf8', f.dataStart, f.dataStart + f.dataLength)) });
    const out: string[] = [];
    framer.feed(first);
    first.fill(0x21); // the caller reuses its buffer after feed returned
    framer.feed(Buffer.from('\n'));
    expect(out).toEqual([value]);
  });

  it('an id takes effect when its block is dispatched, also for a data line handed over in place', () => {
    const value = 'A'.repeat(200);
    const seen: string[] = [];
    const framer = new SseFramer({ onFrame: (f) => void seen.push(f.lastEventId) });
    framer.feed(Buffer.from(`id: 1\ndata: ${value}\n\nid: 2\ndata: ${value}\n`));
    expect(seen).toEqual(['1']);
    expect(framer.lastEventId).toBe('1');
    expect(framer.end()).toBe(true); // the second block never finished
    expect(framer.lastEventId).toBe('1');
    framer.feed(Buffer.from('id: 3\n\n'));
    expect(framer.lastEventId).toBe('3');
    expect(seen).toEqual(['1']);
  });

  it('gives the same events for any split, in place or not, Buffer or plain Uint8Array chunks', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.array(
              fc.string({ unit: 'grapheme', maxLength: 150 }).map((s) => s.replace(/[\r\n]/g, '')),
              { minLength: 1, maxLength: 3 },
            ),
            fc.constantFrom('\n', '\r\n', '\r'),
          ),
          { maxLength: 6 },
        ),
        fc.array(fc.nat(40), { maxLength: 8 }),
        fc.boolean(),
        (events, cuts, plain) => {
          const text = events.map(([lines, eol]) => lines.map((l) => `data: ${l}${eol}`).join('') + eol).join('');
          const bytes = Buffer.from(text);
          const chunks: Uint8Array[] = [];
          let at = 0;
          for (const c of cuts) {
            const end = Math.min(bytes.length, at + c);
            chunks.push(plain ? new Uint8Array(bytes.subarray(at, end)) : bytes.subarray(at, end));
            at = end;
          }
          chunks.push(bytes.subarray(at));
          const whole = frame([Buffer.from(text)]).map((e) => e.data);
          expect(frame(chunks).map((e) => e.data)).toEqual(whole);
          expect(whole).toEqual(events.map(([lines]) => lines.join('\n')));
        },
      ),
    );
  });
});
