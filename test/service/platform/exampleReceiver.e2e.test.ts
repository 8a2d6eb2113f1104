/**
 * End to end: the example receiver of issue 7 (examples/webhook-receiver.ts), run as its own
 * process exactly as its header says (`npx tsx examples/webhook-receiver.ts` with env), against
 * calls simulated on the real local service (real speech, real signed deliveries).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../../src/service/index.js';
import { createPlatformHandler } from '../../../src/service/platform/index.js';
import { FAST_DELIVERY } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SECRET = 'whsec_example_e2e';
const INIT_SECRET = 'whsec_example_init';

let child: ChildProcess;
let receiverUrl: string;
const lines: any[] = [];
const lineWaiters: Array<() => void> = [];
let svc: LocalService;
const handler = createPlatformHandler({ delivery: FAST_DELIVERY });

function waitForLines(n: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (lines.length >= n ? (resolve(), true) : false);
    if (!check()) lineWaiters.push(() => void check());
  });
}

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', 'examples/webhook-receiver.ts'], {
    cwd: ROOT,
    env: { ...process.env, WEBHOOK_SECRET: SECRET, INIT_SECRET, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    let nl: number;
    while ((nl = out.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(out.slice(0, nl)));
      out = out.slice(nl + 1);
      for (const w of lineWaiters.splice(0)) w();
    }
  });
  receiverUrl = await new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
      const m = /listening on (\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`example receiver exited (${code}): ${err}`)));
  });
  svc = await startLocalService({ platform: handler });
}, 30_000);

afterAll(async () => {
  await handler.platform.settled();
  await svc?.close();
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
});

async function call(method: string, path: string, body?: unknown) {
  const r = await fetch(svc.baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${svc.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await r.json()) as any;
}

describe('the example receiver against simulated calls', () => {
  it('verifies, deduplicates and logs every event, and personalises inbound calls', async () => {
    const agent = await call('POST', '/v1/agent/agents', {
      name: 'Example e2e',
      description: '',
      config: {
        prompt: { system_prompt: 'Greet {{customer_name}} ({{tier}}).', first_message: 'Hi {{customer_name}}!' },
        voice: { voice_id: 'default', speaking_language: 'en' },
        webhooks: {
          post_call: [{ url: `${receiverUrl}/webhooks/post-call`, secret: SECRET }],
          conversation_init: { url: `${receiverUrl}/webhooks/conversation-init`, secret: INIT_SECRET },
        },
        analysis: { summary: { enabled: true } },
      },
    });
    await call('POST', `/v1/agent/agents/${agent.agent_id}/publish`);

    const inbound = await call('POST', `/v1/agent/agents/${agent.agent_id}/simulate`, {
      direction: 'inbound',
      caller_number: '+15550001111',
      dialed_number: '+15550002222',
      turns: [{ user: 'Hello!' }],
      analysis_error: 'first run failed',
      wait_for_deliveries: true,
    });
    expect(inbound.conversation_init).toMatchObject({ outcome: 'ok', variables: { customer_name: 'Ada', tier: 'gold' } });
    expect(inbound.rendered).toEqual({ system_prompt: 'Greet Ada (gold).', first_message: 'Hi Ada!' });
    expect(inbound.session.items[0].tts_usage.audio_seconds).toBeGreaterThan(0);
    const inboundId = inbound.session.session_id;

    const outbound = await call('POST', `/v1/agent/agents/${agent.agent_id}/simulate`, {
      direction: 'outbound',
      dial_status: 'no_answer',
      wait_for_deliveries: true,
    });
    await call('POST', `/v1/agent/sessions/${inboundId}/analysis/rerun`, { wait_for_deliveries: true });
    await waitForLines(4);
    expect(lines).toEqual([
      { event: 'call.ended', session: inboundId, ended_reason: 'user_hangup' },
      { event: 'call.analyzed', session: inboundId, analysis_status: 'error', finished_at: expect.any(String) },
      { event: 'phone_call.dial_finished', session: outbound.session.session_id, dial_status: 'no_answer' },
      { event: 'call.analyzed', session: inboundId, analysis_status: 'completed', finished_at: expect.any(String) },
    ]);
    expect(Date.parse(lines[3].finished_at)).toBeGreaterThan(Date.parse(lines[1].finished_at));
    // Every delivery got a 2xx on its first attempt: the receiver verified each signature.
    const all = [...inbound.deliveries, ...outbound.deliveries];
    // inbound: call.ended + call.analyzed; outbound: phone_call.dial_finished (an empty list must not pass)
    expect(all.map((d: any) => [d.state, d.attempts.length])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
      ['delivered', 1],
    ]);
  });
});
