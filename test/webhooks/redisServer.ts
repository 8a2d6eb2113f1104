/**
 * Starts a private redis-server on a free loopback port for one test file.
 * Returns undefined (and says so loudly) when the binary is missing; in CI it is installed.
 * It runs without persistence (`--save '' --appendonly no`): a restart starts empty.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface RedisServer {
  port: number;
  url: string;
  /** Stops the server (SIGTERM) and resolves once the process has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port after `stop()` (an outage that ends). */
  restart(): Promise<void>;
  /** SIGSTOP: connections stay open but nothing is answered (a hung server). */
  pause(): void;
  /** SIGCONT after `pause()`. */
  resume(): void;
}

const READY = /Ready to accept connections/;
const START_TIMEOUT_MS = 10_000;

export function redisServerAvailable(): boolean {
  const r = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  return r.status === 0;
}

/** A loopback port that was free a moment ago (bound, then closed): nothing listens on it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function spawnRedisServer(port: number): Promise<ChildProcess> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'notice'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise<ChildProcess>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), START_TIMEOUT_MS);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (READY.test(out)) {
        clearTimeout(timer);
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out}`));
    });
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child = await spawnRedisServer(port);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGCONT'); // a paused server would hold SIGTERM until resumed
        child.kill('SIGTERM');
      }),
    restart: async () => {
      if (child.exitCode === null && child.signalCode === null) throw new Error('restart() needs stop() first');
      child = await spawnRedisServer(port);
    },
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
  };
}
