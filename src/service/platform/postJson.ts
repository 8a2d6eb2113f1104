/**
 * One outgoing webhook request: POST a byte-exact body, with a whole-request timeout, and read a
 * bounded answer. Used by post-call deliveries and the inbound `conversation_init` call.
 */
import * as http from 'node:http';
import * as https from 'node:https';

/** Largest answer body read from a customer endpoint. */
export const MAX_ANSWER_BYTES = 256 * 1024;

export type PostOutcome = { kind: 'answered'; status: number; body: Buffer } | { kind: 'timeout' } | { kind: 'network'; message: string };

export interface PostOptions {
  url: string;
  body: Buffer;
  headers: Record<string, string>;
  timeoutMs: number;
}

/** Never rejects: every failure is an outcome. */
export function postBytes({ url, body, headers, timeoutMs }: PostOptions): Promise<PostOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      resolve({ kind: 'network', message: 'invalid url' });
      return;
    }
    const transport = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : null;
    if (transport === null) {
      resolve({ kind: 'network', message: `unsupported protocol ${target.protocol}` });
      return;
    }
    const req = transport.request(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(body.length),
        'user-agent': 'voicewire-local-service',
        ...headers,
      },
      agent: false,
    });
    const timer = setTimeout(() => {
      finish({ kind: 'timeout' });
      req.destroy();
    }, timeoutMs);
    req.on('error', (err) => finish({ kind: 'network', message: err.message }));
    req.on('response', (res) => {
      const parts: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size + chunk.length > MAX_ANSWER_BYTES) {
          res.destroy();
          finish({ kind: 'network', message: `answer over ${MAX_ANSWER_BYTES} bytes` });
          return;
        }
        size += chunk.length;
        parts.push(chunk);
      });
      res.on('end', () => finish({ kind: 'answered', status: res.statusCode ?? 0, body: Buffer.concat(parts, size) }));
      res.on('error', (err) => finish({ kind: 'network', message: err.message }));
      res.on('aborted', () => finish({ kind: 'network', message: 'answer aborted' }));
    });
    req.end(body);
  });
}
