/**
 * Usage objects of simulated calls. Token counts are estimated from text (≈ 4 characters per
 * token, rounded up); speech usage is what the speech engine really produced. Costs are integer
 * micro-dollars, formatted as decimal strings only here.
 *
 * @see docs/service-interface.md#sessions (usage objects)
 */
import { costMicros, formatMicros } from './money.js';
import type { PlatformRates, SpeechUsage } from './options.js';
import type { UsageObject, UsageTokens } from './types.js';

/** Characters per estimated LLM token. */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / CHARS_PER_TOKEN);
}

interface Line {
  category: string;
  units: number;
  rate: string;
}

function usageObject(
  billingMode: string,
  model: string,
  generationId: string,
  turnId: number,
  lines: Line[],
  rates: PlatformRates,
  callId: string,
): { usage: UsageObject; micros: bigint } {
  let micros = 0n;
  const tokens: UsageTokens[] = lines.map(({ category, units, rate }) => {
    const cost = costMicros(units, rate);
    micros += cost;
    return { model, rate_version: rates.rateVersion, category, tokens: units, rate_per_million: rate, cost_usd: formatMicros(cost) };
  });
  const cost = formatMicros(micros);
  return {
    micros,
    usage: {
      status: 'complete',
      billing_mode: billingMode,
      message_generation_id: generationId,
      turn_id: turnId,
      call_count: 1,
      usage_complete: true,
      call_ids: [callId],
      cost_usd: cost,
      billable_cost_usd: cost,
      known_cost_usd: cost,
      tokens,
    },
  };
}

/** LLM usage of one generation: the prompt so far in, the reply out. */
export function llmUsage(
  model: string,
  generationId: string,
  turnId: number,
  inputTokens: number,
  outputTokens: number,
  rates: PlatformRates,
  callId: string,
): { usage: UsageObject; micros: bigint } {
  return usageObject(
    'tokens',
    model,
    generationId,
    turnId,
    [
      { category: 'input', units: inputTokens, rate: rates.llmInputPerMillion },
      { category: 'output', units: outputTokens, rate: rates.llmOutputPerMillion },
    ],
    rates,
    callId,
  );
}

/** Speech usage of one spoken message, billed per character, with the audio length it produced. */
export function speechUsage(
  speech: SpeechUsage,
  generationId: string,
  turnId: number,
  rates: PlatformRates,
  callId: string,
): { usage: UsageObject; micros: bigint } {
  const out = usageObject(
    'characters',
    speech.model ?? 'speech',
    generationId,
    turnId,
    [{ category: 'characters', units: speech.characters, rate: rates.ttsCharactersPerMillion }],
    rates,
    callId,
  );
  out.usage['audio_seconds'] = speech.audioSeconds;
  return out;
}
