import { describe, expect, it } from 'vitest';
import { SendPacer } from '../../src/telephony/SendPacer.js';
import { ManualClock } from './helpers/ManualClock.js';

/** Sends 20 ms frames whenever due, as the call does; returns the clock times of the sends. */
function drive(clock: ManualClock, pacer: SendPacer, frames: number, untilMs: number): number[] {
  const sends: number[] = [];
  let left = frames;
  const pump = (): void => {
    while (left > 0) {
      const now = clock.now();
      const due = pacer.due;
      if (due > now) {
        pacer.schedule(due, now);
        return;
      }
      pacer.sent(now, due, 20);
      sends.push(now);
      left--;
    }
  };
  (pacer as unknown as { wake: () => void }).wake = pump;
  pump();
  while (clock.fireNext(untilMs)) {
    /* timers drive the pump */
  }
  return sends;
}

describe('send pacer', () => {
  it('sends the lead at once, then one frame per 20 ms on an absolute schedule', () => {
    const clock = new ManualClock();
    const pacer = new SendPacer(clock, 100, () => {});
    const sends = drive(clock, pacer, 20, 10_000);
    expect(sends.slice(0, 6)).toEqual([0, 0, 0, 0, 0, 0]); // 100 ms of lead, plus the frame that crossed it
    expect(sends.slice(6, 10)).toEqual([20, 40, 60, 80]);
    expect(pacer.lateness.count).toBe(14);
    expect(pacer.lateness.maxMs).toBe(0);
  });

  it('late wake-ups are recorded and do not shift the schedule', () => {
    const clock = new ManualClock();
    const pacer = new SendPacer(clock, 40, () => {});
    for (let i = 0; i < 3; i++) pacer.sent(0, pacer.due, 20); // the phone is busy until 60
    let fired = 0;
    (pacer as unknown as { wake: () => void }).wake = () => {
      fired++;
      const now = clock.now();
      pacer.sent(now, pacer.due, 20);
    };
    expect(pacer.due).toBe(20);
    pacer.schedule(pacer.due, 0);
    clock.set(27); // the event loop was 7 ms late
    clock.fireNext();
    expect(fired).toBe(1);
    expect(pacer.lateness.maxMs).toBe(7);
    expect(pacer.due).toBe(40); // the phone ends at 60 + 20 = 80: the late wake-up shifted nothing
  });

  it('after an underrun (the source was slow) the lead is rebuilt from now', () => {
    const clock = new ManualClock();
    const pacer = new SendPacer(clock, 40, () => {});
    pacer.sent(0, pacer.due, 20);
    clock.set(500);
    pacer.idle();
    expect(pacer.due).toBeLessThan(500);
    pacer.sent(500, pacer.due, 20);
    expect(pacer.due).toBe(480); // 500 + 20 - 40: still under the lead, send again at once
    pacer.reset();
    expect(pacer.due).toBe(Number.NEGATIVE_INFINITY);
  });
});
