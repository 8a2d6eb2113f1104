/**
 * Simulated calls: drives a session through the states a real call goes through (dial, answer,
 * conversation, end, analysis) and emits the webhooks a real call would.
 *
 * Emission rules (docs/service-interface.md#post-call-webhook-events):
 * - outbound: `phone_call.dial_finished` when the dial resolves; busy / no_answer / failed stop there;
 * - `call.ended` only when a participant connected; `call.analyzed` always follows it;
 * - builder-preview calls run on the draft config and deliver nothing (nor call conversation_init).
 */
import { conversationInitEndpoint, configString, isObject, postCallEndpoints } from './agentConfig.js';
import type { AgentPlatform } from './AgentPlatform.js';
import { analyzeCall } from './analysis.js';
import { callConversationInit } from './conversationInit.js';
import { conflict } from './http.js';
import type { SpeakFunction, SpeechUsage } from './options.js';
import { sessionDetail } from './sessionView.js';
import { parseSimulation, type SimulatedTurn, type SimulationPlan } from './simulationRequest.js';
import type { AgentRecord, JsonObject, SessionItem, SessionRecord, WebhookEndpoint } from './types.js';
import { estimateTokens, llmUsage, speechUsage } from './usage.js';
import { fillTemplate } from './variables.js';
import {
  callAnalyzedPayload,
  callEndedPayload,
  dialFinishedPayload,
  EVENT_CALL_ANALYZED,
  EVENT_CALL_ENDED,
  EVENT_DIAL_FINISHED,
} from './webhookPayloads.js';

/** Words per second a simulated caller speaks at (sets the default call duration). */
export const CALLER_WORDS_PER_SECOND = 2.5;
/** Fallback speaking rate when no speech engine is wired in (characters per second). */
export const ESTIMATED_CHARS_PER_SECOND = 14;
/** Model name put on LLM usage when the agent has no custom LLM. */
export const SIMULATED_LLM_MODEL = 'voicewire-sim-llm';
/** Opening generated from `first_message_prompt` when no `first_message` is set. */
export const GENERATED_OPENING = 'Hello! How can I help you today?';
/** The system tool that ends a call from the agent's side. */
const HANG_UP_TOOL = 'hang_up_call';
/** End reasons after which a connected session is `failed` rather than `completed`. */
const FAILED_AFTER_CONNECT = new Set(['internal_error', 'llm_endpoint_failure', 'agent_join_timeout']);

export type SimulationTarget = { agentId: string } | { sessionId: string };

/** Created sessions a simulation has taken, so two concurrent runs cannot both drive one. */
const started = new WeakSet<SessionRecord>();

function estimateSpeech(text: string): SpeechUsage {
  return { characters: text.length, audioSeconds: Math.round((text.length / ESTIMATED_CHARS_PER_SECOND) * 1000) / 1000, model: 'estimate' };
}

/** Builds the timeline: spoken agent messages, caller turns with LLM usage, tool calls/results. */
class Conversation {
  t: number;
  turnId = 0;
  hungUpByAgent = false;
  private readonly history: string[];

  constructor(
    readonly platform: AgentPlatform,
    readonly s: SessionRecord,
    readonly config: JsonObject,
    readonly speak: SpeakFunction | undefined,
    systemPrompt: string,
    startMs: number,
    /** Aborts when the client left: the conversation stops before its next step. */
    readonly signal: AbortSignal | undefined,
  ) {
    this.t = startMs;
    this.history = [systemPrompt];
  }

  private id(prefix: string): string {
    return this.platform.options.newId(prefix);
  }

  private push(item: JsonObject & { type: SessionItem['type'] }): void {
    this.s.items.push({ id: this.id('item'), turn_id: this.turnId, created_at: new Date(this.t).toISOString(), ...item } as SessionItem);
  }

  async say(text: string, generationId: string): Promise<void> {
    const voiceId = configString(this.config, 'voice', 'voice_id');
    const language = configString(this.config, 'voice', 'speaking_language');
    const voiceCfg = this.config['voice'];
    const speed = isObject(voiceCfg) && typeof voiceCfg['speed'] === 'number' ? voiceCfg['speed'] : undefined;
    this.signal?.throwIfAborted();
    const voice = { ...(voiceId ? { voiceId } : {}), ...(language ? { language } : {}), ...(speed !== undefined ? { speed } : {}) };
    const spoken = this.speak
      ? await this.speak(text, voice, this.signal !== undefined ? { signal: this.signal } : undefined)
      : estimateSpeech(text);
    this.signal?.throwIfAborted();
    const { usage, micros } = speechUsage(spoken, generationId, this.turnId, this.platform.options.rates, this.id('tts'));
    this.s.costMicros.tts += micros;
    this.s.tts.characters += spoken.characters;
    this.s.tts.audioSeconds = Math.round((this.s.tts.audioSeconds + spoken.audioSeconds) * 1000) / 1000;
    this.push({
      type: 'message',
      role: 'assistant',
      content: text,
      runtime_message_id: this.id('rtm'),
      message_generation_id: generationId,
      llm_usage: null,
      tts_usage: usage,
    });
    this.history.push(text);
    this.t += Math.round(spoken.audioSeconds * 1000);
  }

  async opening(firstMessage: string | undefined, firstMessagePrompt: string | undefined): Promise<void> {
    const generationId = this.id('gen');
    if (firstMessage === undefined && firstMessagePrompt !== undefined) {
      const input = estimateTokens(this.history.join('\n')) + estimateTokens(firstMessagePrompt);
      const { usage, micros } = llmUsage(
        this.llmModel(),
        generationId,
        0,
        input,
        estimateTokens(GENERATED_OPENING),
        this.platform.options.rates,
        this.id('llm'),
      );
      this.s.unattributedUsage.push(usage);
      this.s.costMicros.llm += micros;
      firstMessage = GENERATED_OPENING;
    }
    if (firstMessage !== undefined && firstMessage !== '') await this.say(firstMessage, generationId);
  }

  private llmModel(): string {
    const llm = this.config['llm'];
    const model = isObject(llm) && isObject(llm['custom']) ? llm['custom']['model'] : undefined;
    return typeof model === 'string' ? model : SIMULATED_LLM_MODEL;
  }

  async run(turns: SimulatedTurn[]): Promise<void> {
    let generationId = this.id('gen');
    for (let i = 0; i < turns.length && !this.hungUpByAgent; i++) {
      this.signal?.throwIfAborted();
      const turn = turns[i]!;
      if (turn.kind === 'user') {
        this.turnId++;
        generationId = this.id('gen');
        this.history.push(turn.text);
        const reply = replyText(turns, i + 1);
        const { usage, micros } = llmUsage(
          this.llmModel(),
          generationId,
          this.turnId,
          estimateTokens(this.history.join('\n')),
          estimateTokens(reply),
          this.platform.options.rates,
          this.id('llm'),
        );
        this.s.costMicros.llm += micros;
        this.push({
          type: 'message',
          role: 'user',
          content: turn.text,
          runtime_message_id: this.id('rtm'),
          message_generation_id: generationId,
          llm_usage: usage,
        });
        this.t += Math.round((wordCount(turn.text) / CALLER_WORDS_PER_SECOND) * 1000);
      } else if (turn.kind === 'agent') {
        await this.say(turn.text, generationId);
      } else {
        const toolCallId = this.id('call');
        this.push({
          type: 'tool_call',
          tool_call_id: toolCallId,
          name: turn.name,
          arguments: turn.arguments,
          message_generation_id: generationId,
        });
        this.push({ type: 'tool_result', tool_call_id: toolCallId, name: turn.name, result: turn.result, is_error: turn.isError });
        this.history.push(JSON.stringify(turn.result));
        if (turn.name === HANG_UP_TOOL && !turn.isError) this.hungUpByAgent = true;
      }
    }
  }
}

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** What the agent generates after caller turn `from - 1`: its replies and tool arguments. */
function replyText(turns: SimulatedTurn[], from: number): string {
  const out: string[] = [];
  for (let j = from; j < turns.length; j++) {
    const t = turns[j]!;
    if (t.kind === 'user') break;
    out.push(t.kind === 'agent' ? t.text : JSON.stringify(t.arguments));
  }
  return out.join('\n');
}

/** Settles the analysis of a connected session and delivers `call.analyzed`. */
export function runAnalysis(platform: AgentPlatform, s: SessionRecord, config: JsonObject, endpoints: readonly WebhookEndpoint[]): void {
  const previous = s.analysis?.finished_at ? Date.parse(s.analysis.finished_at) : Number.NEGATIVE_INFINITY;
  const ended = s.endedAt ? Date.parse(s.endedAt) : Number.NEGATIVE_INFINITY;
  // A re-run's finished_at is always newer, even on a clock that did not move.
  const finished = Math.max(platform.options.now(), ended, previous + 1);
  // The run is synchronous and deterministic, so `queued` is never observable here.
  s.analysis = analyzeCall(config, s.items, new Date(finished).toISOString(), s.analysisFailure);
  platform.deliverer.deliver(s.sessionId, endpoints, EVENT_CALL_ANALYZED, callAnalyzedPayload(s, s.analysis));
}

function start(
  platform: AgentPlatform,
  workspaceId: string,
  target: SimulationTarget,
  body: JsonObject,
  plan: SimulationPlan,
): { a: AgentRecord; s: SessionRecord } {
  if ('sessionId' in target) {
    const s = platform.session(workspaceId, target.sessionId);
    if (s.status !== 'pending' || started.has(s))
      throw conflict('session_not_pending', `session '${s.sessionId}' already ran (status ${s.status})`);
    started.add(s);
    const a = platform.agent(workspaceId, s.agentId);
    s.version = a.versions.at(-1) ?? null; // the version live when the call starts
    return { a, s };
  }
  const a = platform.agent(workspaceId, target.agentId);
  if (!plan.preview && a.versions.length === 0) {
    throw conflict('agent_not_published', `agent '${a.agentId}' is a draft: publish a version, or simulate with "preview": true`);
  }
  const source = plan.preview ? 'dashboard' : plan.direction === 'web' ? 'api_key' : 'phone';
  return { a, s: platform.newSession(a, { source, preview: plan.preview, ...platform.sessionInputs(body) }) };
}

/**
 * Runs one simulated call; answers once the call and its analysis settled. When `signal` aborts
 * (the client left), the call stops before its next step, ends as failed (`internal_error`) with
 * what it had, and its webhooks go out as for any ended call.
 */
export async function simulateCall(
  platform: AgentPlatform,
  workspaceId: string,
  target: SimulationTarget,
  body: JsonObject,
  speak: SpeakFunction | undefined,
  signal?: AbortSignal,
): Promise<JsonObject> {
  const plan = parseSimulation(body, 'sessionId' in target);
  const { a, s } = start(platform, workspaceId, target, body, plan);
  const { options, deliverer } = platform;
  const config = s.version?.config ?? a.draft;
  const endpoints = s.preview ? [] : postCallEndpoints(config);
  const events: string[] = [];
  const emit = (event: string, payload: JsonObject) => {
    if (endpoints.length > 0) events.push(event);
    deliverer.deliver(s.sessionId, endpoints, event, payload);
  };
  s.direction = plan.direction === 'web' ? null : plan.direction;
  const conversation = config['conversation'];
  s.timezone = isObject(conversation) && typeof conversation['timezone'] === 'string' ? conversation['timezone'] : null;
  if (plan.direction !== 'web') {
    s.callerNumber = plan.callerNumber;
    s.dialedNumber = plan.dialedNumber;
    s.carrierCallSid = plan.carrierCallSid ?? (plan.direction === 'inbound' ? `CA${options.newId('sid').replace(/\W/g, '')}` : '');
  }

  let conversationInit: JsonObject | null = null;
  const init = plan.direction === 'inbound' && !s.preview ? conversationInitEndpoint(config) : null;
  if (init !== null) {
    const r = await callConversationInit(
      init,
      {
        agentId: a.agentId,
        callerNumber: s.callerNumber ?? '',
        dialedNumber: s.dialedNumber ?? '',
        carrierCallSid: s.carrierCallSid ?? '',
      },
      options,
    );
    for (const [k, v] of r.variables) s.dynamicVariables.set(k, v);
    conversationInit = { outcome: r.outcome, status: r.status, variables: Object.fromEntries(r.variables), warnings: r.warnings };
    options.onLog({ kind: 'conversation_init', url: init.url, sessionId: s.sessionId, outcome: r.outcome, warnings: r.warnings });
  }
  const systemPrompt = fillTemplate(configString(config, 'prompt', 'system_prompt') ?? '', s.dynamicVariables);
  const firstMessageTemplate = configString(config, 'prompt', 'first_message');
  const firstMessage = firstMessageTemplate === undefined ? undefined : fillTemplate(firstMessageTemplate, s.dynamicVariables);
  const startMs = options.now();
  const finish = async (error: string | null = null): Promise<JsonObject> => {
    if (plan.waitForDeliveries) await deliverer.settledFor(s.sessionId);
    return {
      ...(error !== null ? { error } : {}),
      session: sessionDetail(s),
      rendered: { system_prompt: systemPrompt, first_message: firstMessage ?? null },
      conversation_init: conversationInit,
      webhooks: { endpoints: endpoints.map((e) => e.url), events },
      ...(plan.waitForDeliveries ? { deliveries: deliverer.reports(s.sessionId) } : {}),
    };
  };

  if (plan.direction === 'outbound') {
    s.dialStatus = plan.dialStatus;
    if (plan.dialStatus !== 'answered') {
      Object.assign(s, { status: 'failed', endReason: 'dial_failed', endedAt: new Date(startMs).toISOString(), durationSeconds: 0 });
      emit(EVENT_DIAL_FINISHED, dialFinishedPayload(s));
      return finish();
    }
    s.answeredBy = 'unknown';
    s.status = 'active';
    emit(EVENT_DIAL_FINISHED, dialFinishedPayload(s));
  }
  if (!plan.connected) {
    Object.assign(s, {
      status: 'failed',
      endReason: plan.endReason ?? 'room_join_timeout',
      endedAt: new Date(startMs).toISOString(),
      durationSeconds: 0,
    });
    return finish();
  }
  Object.assign(s, { status: 'active', connected: true, startedAt: new Date(startMs).toISOString() });
  const talk = new Conversation(platform, s, config, speak ?? options.speak, systemPrompt, startMs, signal);
  let failure: string | null = null;
  try {
    await talk.opening(firstMessage, configString(config, 'prompt', 'first_message_prompt'));
    await talk.run(plan.turns);
  } catch (err) {
    // The speech engine failed (or the client left) mid-call: the call ends as a real one
    // would, with what it had.
    failure = signal?.aborted ? 'simulation stopped: the client closed the request' : `speech engine failed: ${(err as Error).message}`;
  }
  const endReason = failure !== null ? 'internal_error' : (plan.endReason ?? (talk.hungUpByAgent ? 'agent_hangup' : 'user_hangup'));
  const durationSeconds = plan.durationSeconds ?? Math.round((talk.t - startMs) / 1000);
  Object.assign(s, {
    endReason,
    durationSeconds,
    endedAt: new Date(startMs + durationSeconds * 1000).toISOString(),
    status: FAILED_AFTER_CONNECT.has(endReason) ? 'failed' : 'completed',
  });
  emit(EVENT_CALL_ENDED, callEndedPayload(s));
  s.analysisFailure = plan.analysisError;
  runAnalysis(platform, s, config, endpoints);
  if (endpoints.length > 0) events.push(EVENT_CALL_ANALYZED);
  return finish(failure);
}

/** Re-runs the analysis of a connected session; a new `call.analyzed` supersedes the earlier. */
export async function rerunAnalysis(
  platform: AgentPlatform,
  workspaceId: string,
  sessionId: string,
  body: JsonObject,
): Promise<JsonObject> {
  const s = platform.session(workspaceId, sessionId);
  if (!s.connected || s.status === 'active' || s.status === 'pending') {
    throw conflict('nothing_to_analyze', `session '${sessionId}' has no finished conversation to analyse`);
  }
  const config = s.version?.config ?? platform.agent(workspaceId, s.agentId).draft;
  const cause = body['analysis_error'];
  s.analysisFailure = typeof cause === 'string' ? cause : null;
  runAnalysis(platform, s, config, s.preview ? [] : postCallEndpoints(config));
  if (body['wait_for_deliveries'] === true) await platform.deliverer.settledFor(s.sessionId);
  return { session_id: s.sessionId, analysis: sessionDetail(s)['analysis'] ?? null };
}
