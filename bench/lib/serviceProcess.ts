/**
 * The local service in a child process, for benches that time a client: the service's synthesis
 * and encoding then never hold the measuring process's event loop (which would delay the very
 * events being timed).
 *
 *   node --import tsx bench/lib/serviceProcess.ts [fast|realtime]   → prints {"baseUrl","token"}
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const START_LIMIT_MS = 30_000;

export interface ServiceProcess {
  baseUrl: string;
  token: string;
  /**
   * A second server in the child that answers every request at once with one SSE body the local
   * service produced: a first byte that costs the server nothing, so two clients compared on it
   * differ only by their own cost.
   */
  replayUrl: string;
  close(): Promise<void>;
}

export function startServiceProcess(pace: 'fast' | 'realtime'): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), pace], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('the service process did not start'));
    }, START_LIMIT_MS);
    let buffered = '';
    child.stdout!.on('data', (d: Buffer) => {
      buffered += d.toString();
      const nl = buffered.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      const { baseUrl, token, replayUrl } = JSON.parse(buffered.slice(0, nl)) as { baseUrl: string; token: string; replayUrl: string };
      resolve({
        baseUrl,
        token,
        replayUrl,
        close: () =>
          new Promise<void>((done) => {
            child.once('exit', () => done());
            child.stdin!.end(); // the child exits when its stdin closes
          }),
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service process exited (${code})`));
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { startLocalService } = await import('../../src/service/index.js');
  const pace = process.argv[2] === 'realtime' ? 'realtime' : 'fast';
  const { createServer } = await import('node:http');
  const svc = await startLocalService({ pace });
  const res = await fetch(`${svc.baseUrl}/v1/tts/stream/with-timestamp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'Thanks for calling.', format: 'pcm', sample_rate: 16000 }),
  });
  const capture = Buffer.from(await res.arrayBuffer());
  const replay = createServer((req, out) => {
    req.resume();
    req.on('end', () => {
      out.writeHead(200, { 'content-type': 'text/event-stream' });
      out.end(capture);
    });
  });
  await new Promise<void>((resolve) => replay.listen(0, '127.0.0.1', resolve));
  const port = (replay.address() as { port: number }).port;
  process.stdout.write(`${JSON.stringify({ baseUrl: svc.baseUrl, token: svc.token, replayUrl: `http://127.0.0.1:${port}` })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    replay.closeAllConnections();
    replay.close();
    void svc.close().then(() => process.exit(0));
  });
}
