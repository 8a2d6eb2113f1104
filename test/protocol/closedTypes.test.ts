/**
 * Request and config types are closed: a misspelt field in an object literal does not compile.
 *
 * The `@ts-expect-error` lines below are the test. `npm run typecheck` (`tsc -p tsconfig.json
 * --noEmit`, whose `include` holds `test/`) fails with "Unused '@ts-expect-error' directive" the
 * day a type accepts the typo again, e.g. when an index signature comes back. The runtime half
 * (unknown fields reach the wire) lives with the client's loopback tests.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Client } from '../../src/client/index.js';
import type { AgentConfig, AgentCreateParams } from '../../src/protocol/agentTypes.js';
import type { SessionCreateParams } from '../../src/protocol/sessionTypes.js';
import type { TtsRequest } from '../../src/protocol/ttsRequest.js';
import { unknownFields } from '../../src/protocol/unknownFields.js';

/** Calls are written inside a function that never runs: only their types matter here. */
function compileOnly(client: Client): void {
  // @ts-expect-error -- `formt` is not a field of the speech request
  void client.tts.streamWithTimestamps({ text: 'Hi.', formt: 'mp3' });
  void client.tts.streamWithTimestamps({ text: 'Hi.', format: 'mp3', ...unknownFields({ future_knob: 1 }) });

  // @ts-expect-error -- `system_promt` is not a field of the prompt section
  void client.agents.updateConfig('ag_1', { prompt: { system_promt: 'You help.' } });
  void client.agents.create({
    name: 'Desk',
    config: {
      // @ts-expect-error -- `first_mesage` is not a field of the prompt section
      prompt: { system_prompt: 'You help.', first_mesage: 'Hello.' },
      voice: { voice_id: 'v', speaking_language: 'en' },
    },
  });
  // @ts-expect-error -- `voise` is not a section of the agent config
  void client.agents.updateConfig('ag_1', { voise: { voice_id: 'v' } });
  void client.agents.updateConfig('ag_1', { voice: { voice_id: 'v', ...unknownFields({ accent: 'scottish' }) } });
  // @ts-expect-error -- mixing the wire form and the deprecated camelCase form matches neither
  void client.sessions.create({ agent_id: 'ag_1', endUserId: 'u_1' });
  // @ts-expect-error -- `end_user` is not a field of session creation
  void client.sessions.create({ agent_id: 'ag_1', end_user: 'u_1' });
}

describe('closed request types', () => {
  it('reject misspelt fields in object literals, at every level', () => {
    // @ts-expect-error -- `formt`
    const tts: TtsRequest = { text: 'Hi.', formt: 'mp3' };
    // @ts-expect-error -- `sped` inside prosody
    const prosody: TtsRequest = { text: 'Hi.', prosody: { sped: 1.2 } };
    // @ts-expect-error -- `system_promt` (the PATCH body, where every field is optional)
    const prompt: AgentConfig = { prompt: { system_promt: 'You help.' } };
    const create: AgentCreateParams = {
      name: 'Desk',
      // @ts-expect-error -- `speaking_lang`
      config: { prompt: { system_prompt: 'You help.' }, voice: { voice_id: 'v', speaking_language: 'en', speaking_lang: 'en' } },
    };
    // @ts-expect-error -- `max_duration_secs`
    const patch: AgentConfig = { conversation: { max_duration_secs: 60 } };
    // @ts-expect-error -- `end_user` is not a field of session creation
    const session: SessionCreateParams = { agent_id: 'ag_1', end_user: 'u_1' };
    expect([tts, prosody, prompt, create, patch, session]).toHaveLength(6);
  });

  it('keep checking the written-out fields next to an unknownFields spread', () => {
    // @ts-expect-error -- `formt` is still checked although the literal also spreads unknown fields
    const typo: TtsRequest = { text: 'Hi.', formt: 'mp3', ...unknownFields({ future_knob: 1 }) };
    const ok: TtsRequest = { text: 'Hi.', format: 'mp3', ...unknownFields({ future_knob: 1 }) };
    expect(ok).toEqual({ text: 'Hi.', format: 'mp3', future_knob: 1 });
    expect(typo).toMatchObject({ future_knob: 1 });
  });

  it('have no index signature', () => {
    expectTypeOf<TtsRequest>().not.toHaveProperty('some_unknown_field');
    expectTypeOf<AgentConfig>().not.toHaveProperty('some_unknown_field');
    expectTypeOf<AgentCreateParams>().not.toHaveProperty('some_unknown_field');
    expectTypeOf<SessionCreateParams>().not.toHaveProperty('some_unknown_field');
    expect(compileOnly).toBeTypeOf('function');
  });

  it('are type-checked: the project typecheck includes test/', () => {
    const tsconfig = JSON.parse(readFileSync(new URL('../../tsconfig.json', import.meta.url), 'utf8')) as { include: string[] };
    expect(tsconfig.include).toContain('test');
  });
});
