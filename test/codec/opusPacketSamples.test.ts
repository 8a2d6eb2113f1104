import { describe, expect, it } from 'vitest';
import { OggPageReader } from '../../src/codec/ogg/OggPageReader.js';
import { opusPacketSamples } from '../../src/codec/opus/packetSamples.js';
import { fixture } from './audioFixtures.js';

const toc = (config: number, code: number, ...rest: number[]): Uint8Array => Uint8Array.from([(config << 3) | code, ...rest]);

describe('opusPacketSamples', () => {
  it('reads the frame size from the configuration and the frame count from the code (RFC 6716 §3.1)', () => {
    expect(opusPacketSamples(toc(1, 0))).toBe(960); // SILK NB 20 ms
    expect(opusPacketSamples(toc(3, 0))).toBe(2880); // SILK NB 60 ms
    expect(opusPacketSamples(toc(13, 1))).toBe(1920); // hybrid 20 ms, two frames
    expect(opusPacketSamples(toc(16, 2))).toBe(240); // CELT 2.5 ms, two frames
    expect(opusPacketSamples(toc(31, 3, 3))).toBe(2880); // CELT 20 ms, three frames (code 3)
  });

  it('is 0 for what is not a valid packet: empty, code 3 without its count byte, over 120 ms', () => {
    expect(opusPacketSamples(new Uint8Array(0))).toBe(0);
    expect(opusPacketSamples(toc(31, 3))).toBe(0);
    expect(opusPacketSamples(toc(31, 3, 7))).toBe(0); // 7 × 20 ms
  });

  it('adds up to the granule steps of real encoder output (opusenc, ffmpeg 40 ms packets)', () => {
    for (const name of ['default-pages', 'spanning-packet']) {
      const steps: number[] = [];
      const sums: number[] = [];
      let sum = 0;
      let last = 0;
      let audio = false;
      const reader = new OggPageReader({
        onPacket: (p) => {
          if (audio) sum += opusPacketSamples(p.data);
          if (!p.lastOnPage) return;
          if (audio && !p.eos) {
            steps.push(p.granule - last);
            sums.push(sum);
          }
          last = p.granule;
          sum = 0;
          audio ||= p.pageSequence >= 1;
        },
      });
      reader.push(fixture(`opus/${name}.opus`));
      expect(steps.length).toBeGreaterThan(0);
      expect(sums).toEqual(steps);
    }
  });
});
