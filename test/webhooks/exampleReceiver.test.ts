import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startExampleReceiver } from '../../examples/webhook-receiver.js';
import { signWebhookPayload } from '../../src/webhooks/index.js';
import type { WebhookEvent } from '../../src/webhooks/index.js';

const SECRET = 'whsec_example';
const EXAMPLE = fileURLToPath(new URL('../../examples/webhook-receiver.ts', import.meta.url));

function post(url: string, obj: unknown, secret = SECRET): Promise<Response> {
  const body = JSON.stringify(obj);
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Fish-Webhook-Signature': signWebhookPayload({ payload: body, secret }) },
    body,
  });
}

const session = { id: 'sess_ex', direction: 'outbound', batch_call_id: null, dial_status: 'answered', answered_by: 'unknown' };
const deliveries = [
  { event: 'phone_call.dial_finished', session, dial_status: 'answered', answered_by: 'unknown' },
  { event: 'call.ended', session: { ...session, end_reason: 'user_hangup' }, ended_reason: 'user_hangup' },
  {
    event: 'call.analyzed',
    session,
    analysis: { status: 'completed', finished_at: '2026-11-22T03:00:00Z', summary: 'ok', data: [], criteria_results: [] },
  },
];

describe('examples/webhook-receiver.ts', () => {
  it('in process: handles each event once, absorbs retries, refuses bad signatures, answers conversation_init', async () => {
    const seen: WebhookEvent[] = [];
    const rx = await startExampleReceiver({ secret: SECRET, onEvent: (e) => void seen.push(e) });
    try {
      for (const d of deliveries) expect((await post(`${rx.url}/webhooks/post-call`, d)).status).toBe(200);
      for (const d of deliveries) expect((await post(`${rx.url}/webhooks/post-call`, d)).status).toBe(200); // retries
      expect(seen.map((e) => e.type)).toEqual(['phone_call.dial_finished', 'call.ended', 'call.analyzed']);
      expect((await post(`${rx.url}/webhooks/post-call`, deliveries[1], 'wrong')).status).toBe(401);
      const init = await post(`${rx.url}/webhooks/conversation-init`, {
        caller_number: '+15550001111',
        dialed_number: '+1',
        carrier_call_sid: 'CA',
      });
      expect(await init.json()).toEqual({ dynamic_variables: { customer_name: 'Ada', tier: 'gold' } });
    } finally {
      await rx.close();
    }
  });

  it('as a program: starts, logs each event as a JSON line, stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', EXAMPLE], {
      env: { ...process.env, WEBHOOK_SECRET: SECRET, PORT: '0', REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`example exited ${code}: ${err}`)));
    });
    try {
      for (const d of deliveries) expect((await post(`${url}/webhooks/post-call`, d)).status).toBe(200);
      expect((await post(`${url}/webhooks/post-call`, deliveries[1])).status).toBe(200);
    } finally {
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l['event'])).toEqual(['phone_call.dial_finished', 'call.ended', 'call.analyzed']);
    expect(lines[1]).toMatchObject({ session: 'sess_ex', ended_reason: 'user_hangup' });
  });
});
