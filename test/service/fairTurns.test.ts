import { describe, expect, it } from 'vitest';
import { FairTurns } from '../../src/service/stream/FairTurns.js';

/** A FairTurns whose event-loop iterations are stepped by hand. */
function stepped(): { turns: FairTurns; step: () => Promise<void>; pending: () => number } {
  const deferred: (() => void)[] = [];
  const turns = new FairTurns((fn) => {
    deferred.push(fn);
  });
  return {
    turns,
    pending: () => deferred.length,
    step: async () => {
      deferred.shift()?.();
      await Promise.resolve();
    },
  };
}

describe('FairTurns', () => {
  it('grants one turn per iteration, lowest level first, arrival order among equals', async () => {
    const { turns, step } = stepped();
    const order: string[] = [];
    for (const [name, level] of [
      ['a3', 3],
      ['b0', 0],
      ['c1', 1],
      ['d0', 0],
    ] as const) {
      void turns.turn(level).then(() => order.push(name));
    }
    await step();
    expect(order).toEqual(['b0']);
    await step();
    await step();
    await step();
    expect(order).toEqual(['b0', 'd0', 'c1', 'a3']);
    expect(turns.waitingCount).toBe(0);
  });

  it("a request that arrives later with its first piece goes before the others' later pieces", async () => {
    const { turns, step } = stepped();
    const order: string[] = [];
    void turns.turn(5).then(() => order.push('old5'));
    void turns.turn(6).then(() => order.push('old6'));
    await step();
    void turns.turn(0).then(() => order.push('new0'));
    await step();
    await step();
    expect(order).toEqual(['old5', 'new0', 'old6']);
  });

  it('asks for no iteration while nobody waits', async () => {
    const { turns, step, pending } = stepped();
    expect(pending()).toBe(0);
    void turns.turn(0);
    expect(pending()).toBe(1);
    await step();
    expect(pending()).toBe(0);
  });

  it('while a request waits for its first audio, only first pieces get turns; later ones go once it is released', async () => {
    const { turns, step, pending } = stepped();
    const order: string[] = [];
    const release = turns.holdForFirstAudio();
    void turns.turn(3).then(() => order.push('old3'));
    await step();
    expect(order).toEqual([]);
    // Held without spinning: no iteration is asked for until something changes.
    expect(pending()).toBe(0);
    void turns.turn(0).then(() => order.push('new0'));
    await step();
    expect(order).toEqual(['new0']);
    release();
    release(); // twice is once
    await step();
    expect(order).toEqual(['new0', 'old3']);
  });
});
