import { describe, expect, it } from 'vitest';
import { SinkError } from '../../src/errors.js';
import { BUILTIN_PLAYERS, customPlayer } from '../../src/sinks/audioOutput.js';
import { PlayerProcess, READY_TIMEOUT_MS, type PlayerProcessHandlers } from '../../src/sinks/PlayerProcess.js';
import { systemClock } from '../../src/internal/clock.js';
import { createFakeClock } from './fakeClock.js';

const FORMAT = { sampleRate: 16000, channels: 1 };
const node = process.execPath;

/** Handlers that record what happened. */
function recorder(): PlayerProcessHandlers & {
  exits: Array<[number | null, NodeJS.Signals | null]>;
  startFailures: SinkError[];
  exited: Promise<void>;
} {
  let markExited!: () => void;
  const exited = new Promise<void>((resolve) => (markExited = resolve));
  const r = {
    exits: [] as Array<[number | null, NodeJS.Signals | null]>,
    startFailures: [] as SinkError[],
    exited,
    onStartFailure: (err: SinkError) => {
      r.startFailures.push(err);
      markExited();
    },
    onExit: (code: number | null, signal: NodeJS.Signals | null) => {
      r.exits.push([code, signal]);
      markExited();
    },
  };
  return r;
}

describe('PlayerProcess', () => {
  it('a custom player is named by its command line; its exit error says how it ended and its last stderr line', async () => {
    const h = recorder();
    const script = 'process.stderr.write("opening\\ndevice-busy\\n");process.exit(5)';
    const p = new PlayerProcess(customPlayer(`${node} -e ${script}`, 0), FORMAT, process.env, systemClock, h);
    const closed = new Promise((resolve) => p.child.once('close', resolve)); // stderr read to its end
    await p.ready;
    await h.exited;
    await closed;
    expect(p.exited).toBe(true);
    expect(h.exits).toEqual([[5, null]]);
    const err = p.exitError(5, null);
    expect(err.code).toBe('PLAYER_FAILED');
    expect(err.message).toBe(`the player ${node} -e ${script} exited with code 5: device-busy`);
    expect(p.exitError(null, 'SIGKILL').message).toMatch(/ was killed by SIGKILL: device-busy$/);
  });

  it('a built-in player is named by its name', () => {
    const p = new PlayerProcess(
      { ...BUILTIN_PLAYERS.aplay!, command: node, args: () => ['-e', ''] },
      FORMAT,
      process.env,
      systemClock,
      recorder(),
    );
    expect(p.label).toBe('aplay');
    p.stop();
  });

  it('a player that cannot start rejects `ready` with the same PLAYER_FAILED error it reports', async () => {
    const h = recorder();
    const p = new PlayerProcess(customPlayer('/nonexistent/player --flag', 0), FORMAT, process.env, systemClock, h);
    const err = await p.ready.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SinkError);
    expect((err as SinkError).message).toMatch(/^could not start the player \/nonexistent\/player --flag: .*ENOENT/);
    expect(h.startFailures).toEqual([err]);
    expect(p.exited).toBe(true);
  });

  it('with a ready text it is ready when the text appears, and fails after READY_TIMEOUT_MS on the clock when it never does', async () => {
    const clock = createFakeClock();
    const prints = new PlayerProcess(
      customPlayer(`${node} -e process.stderr.write("ok-ready");setTimeout(()=>{},60000)`, 0, 'ok-ready'),
      FORMAT,
      process.env,
      clock,
      recorder(),
    );
    await prints.ready;
    prints.stop();

    const silent = new PlayerProcess(
      customPlayer(`${node} -e setTimeout(()=>{},60000)`, 0, 'never'),
      FORMAT,
      process.env,
      clock,
      recorder(),
    );
    await new Promise((resolve) => silent.child.once('spawn', resolve));
    clock.advance(READY_TIMEOUT_MS - 1);
    let settled = false;
    const outcome = silent.ready
      .then(
        () => 'ready',
        (e: Error) => e.message,
      )
      .finally(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.advance(1);
    expect(await outcome).toMatch(/did not print "never" within 10000 ms$/);
    silent.stop();
    expect(clock.pending()).toBe(0);
  });

  it('stop() ends a running player and cancels the wait for its ready text', async () => {
    const clock = createFakeClock();
    const h = recorder();
    const p = new PlayerProcess(customPlayer(`${node} -e setTimeout(()=>{},60000)`, 0, 'never'), FORMAT, process.env, clock, h);
    await new Promise((resolve) => p.child.once('spawn', resolve));
    expect(clock.pending()).toBe(1);
    p.stop();
    expect(clock.pending()).toBe(0);
    await h.exited;
    expect(h.exits).toEqual([[null, 'SIGTERM']]);
  });
});
