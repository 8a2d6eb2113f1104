import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UnitQueue } from '../../src/service/speech/UnitQueue.js';

interface U {
  seq: number;
  name: string;
}
const u = (name: string, seq: number): U => ({ name, seq });

describe('UnitQueue', () => {
  it('fair: a waiting first chunk goes before an earlier-queued second chunk', () => {
    const q = new UnitQueue<U>('fair');
    q.push(u('a1', 1));
    q.push(u('b0', 0));
    q.push(u('c0', 0));
    expect([q.take()!.name, q.take()!.name, q.take()!.name]).toEqual(['b0', 'c0', 'a1']);
    expect(q.take()).toBeUndefined();
  });

  it('fifo: units leave in arrival order whatever their chunk index', () => {
    const q = new UnitQueue<U>('fifo');
    q.push(u('a1', 1));
    q.push(u('b0', 0));
    expect([q.take()!.name, q.take()!.name]).toEqual(['a1', 'b0']);
  });

  it('a removed (cancelled) unit is never taken, and removing it twice says so', () => {
    const q = new UnitQueue<U>('fair');
    const b = u('b0', 0);
    q.push(u('a0', 0));
    q.push(b);
    expect(q.remove(b)).toBe(true);
    expect(q.remove(b)).toBe(false);
    expect(q.length).toBe(1);
    expect(q.take()!.name).toBe('a0');
  });

  it('fair: the taken order is sorted by chunk index, arrival order among equals (any arrivals)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(5), { maxLength: 40 }), (seqs) => {
        const q = new UnitQueue<U>('fair');
        seqs.forEach((s, i) => q.push(u(String(i), s)));
        const out: U[] = [];
        for (let x = q.take(); x !== undefined; x = q.take()) out.push(x);
        const expected = seqs.map((s, i) => u(String(i), s)).sort((a, b) => a.seq - b.seq || Number(a.name) - Number(b.name));
        expect(out).toEqual(expected);
      }),
    );
  });
});
