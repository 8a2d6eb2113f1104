import { beforeAll, describe, expect, it } from 'vitest';
import { loadResampler, Resampler } from '../../src/dsp/Resampler.js';

beforeAll(() => loadResampler());

function tone(freq: number, rate: number, frames: number, amp = 0.5): Float32Array {
  const x = new Float32Array(frames);
  for (let i = 0; i < frames; i++) x[i] = amp * Math.sin((2 * Math.PI * freq * i) / rate);
  return x;
}

function run(r: Resampler, input: Float32Array, chunk: number): Float32Array {
  const parts: Float32Array[] = [];
  const sink = (o: Float32Array) => parts.push(o.slice());
  for (let i = 0; i < input.length; i += chunk) r.process(input.subarray(i, i + chunk), sink);
  r.flush(sink);
  const out = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** RMS of `y` minus its best-fit sine at `freq` (least squares on sin and cos). */
function residualAfterSine(y: Float32Array, freq: number, rate: number, from: number, to: number): { amp: number; residual: number } {
  let ss = 0,
    cc = 0,
    sc = 0,
    ys = 0,
    yc = 0;
  for (let i = from; i < to; i++) {
    const s = Math.sin((2 * Math.PI * freq * i) / rate);
    const c = Math.cos((2 * Math.PI * freq * i) / rate);
    ss += s * s;
    cc += c * c;
    sc += s * c;
    ys += y[i]! * s;
    yc += y[i]! * c;
  }
  const det = ss * cc - sc * sc;
  const a = (ys * cc - yc * sc) / det;
  const b = (yc * ss - ys * sc) / det;
  let e = 0;
  for (let i = from; i < to; i++) {
    const fit = a * Math.sin((2 * Math.PI * freq * i) / rate) + b * Math.cos((2 * Math.PI * freq * i) / rate);
    e += (y[i]! - fit) ** 2;
  }
  return { amp: Math.hypot(a, b), residual: Math.sqrt(e / (to - from)) };
}

const db = (x: number) => 20 * Math.log10(x);

describe('Resampler (speex, quality 5)', () => {
  it.each([
    [48000, 8000, 48000],
    [44100, 8000, 44100 + 17],
    [22050, 16000, 22050 * 2 + 1],
    [24000, 48000, 12345],
    [8000, 44100, 8001],
    [16000, 16000, 999],
  ])('%i → %i Hz: exactly round(n × out / in) frames out for %i in, however it is chunked', (inRate, outRate, n) => {
    const expected = Math.round((n * outRate) / inRate);
    for (const chunk of [n, 960, 441, 1]) {
      if (chunk === 1 && n > 20000) continue;
      const r = new Resampler(1, inRate, outRate);
      expect(run(r, tone(440, inRate, n), chunk).length).toBe(expected);
      r.free();
    }
  });

  it('chunking does not change the output (state kept across calls)', () => {
    const x = tone(1000, 48000, 9600);
    const a = run(new Resampler(1, 48000, 8000), x, 9600);
    const b = run(new Resampler(1, 48000, 8000), x, 7);
    expect(b).toEqual(a);
  });

  it('a 1 kHz tone 48 → 8 kHz comes out clean (residual ≤ −80 dB) and in time (no latency shift)', () => {
    const y = run(new Resampler(1, 48000, 8000), tone(1000, 48000, 48000), 960);
    const { amp, residual } = residualAfterSine(y, 1000, 8000, 400, 7600);
    expect(Math.abs(db(amp / 0.5))).toBeLessThan(0.1); // passband gain within 0.1 dB
    expect(db(residual / 0.5)).toBeLessThan(-80); // measured: −113 dB
    // phase: the fitted sine has no delay, so the output lines up with the input sample for sample
    expect(Math.abs(y[2000]! - 0.5 * Math.sin((2 * Math.PI * 1000 * 2000) / 8000))).toBeLessThan(0.01);
  });

  it('a 5 kHz tone (above the new 4 kHz Nyquist) does not alias into the band: ≤ −80 dB left', () => {
    const y = run(new Resampler(1, 48000, 8000), tone(5000, 48000, 48000), 960);
    let e = 0;
    for (let i = 400; i < 7600; i++) e += y[i]! ** 2;
    const rms = Math.sqrt(e / 7200);
    expect(db(rms / (0.5 / Math.SQRT2))).toBeLessThan(-80); // measured: −131 dB
  });

  it('stereo is resampled per channel, interleaved', () => {
    const n = 4800;
    const x = new Float32Array(n * 2);
    for (let i = 0; i < n; i++) {
      x[2 * i] = 0.5 * Math.sin((2 * Math.PI * 500 * i) / 48000);
      x[2 * i + 1] = 0;
    }
    const y = run(new Resampler(2, 48000, 16000), x, 480);
    expect(y.length).toBe(2 * 1600);
    let right = 0;
    for (let i = 1; i < y.length; i += 2) right = Math.max(right, Math.abs(y[i]!));
    expect(right).toBe(0);
  });
});
