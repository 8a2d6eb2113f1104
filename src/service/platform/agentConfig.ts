/**
 * The agent configuration: type checks for every field the spec's config table names, merge-patch
 * updates, `post_call` normalisation and the write-only secret rules.
 *
 * Configs are kept as plain JSON so that fields the spec does not name pass through untouched
 * (the API grows). `null` means "absent" everywhere, as in JSON merge patch (RFC 7396).
 *
 * @see docs/service-interface.md#agents and #authentication-and-webhook-signatures (rule 5: secrets are write-only)
 */
import { badRequest, unprocessable } from './http.js';
import type { JsonObject, WebhookEndpoint } from './types.js';

type Scalar = 'string' | 'boolean' | 'integer' | 'number';
type Shape = Scalar | { object: { [field: string]: Shape } } | { array: Shape } | { oneOrMany: Shape };

const obj = (fields: { [field: string]: Shape }): Shape => ({ object: fields });
const arr = (item: Shape): Shape => ({ array: item });

const WEBHOOK_ENDPOINT = obj({ url: 'string', secret: 'string' });

/** Every path of the spec's configuration table, with its type. */
export const CONFIG_SHAPE: { [section: string]: Shape } = {
  prompt: obj({ system_prompt: 'string', first_message: 'string', first_message_prompt: 'string' }),
  voice: obj({ voice_id: 'string', speaking_language: 'string', expressive: 'boolean', keyterms: arr('string'), speed: 'number' }),
  conversation: obj({
    max_duration_seconds: 'integer',
    interruptible: 'boolean',
    reengage_enabled: 'boolean',
    hangup_after_seconds: 'integer',
    hangup_farewell_enabled: 'boolean',
    record_audio: 'boolean',
    timezone: 'string',
    transfer_destinations: arr(
      obj({
        type: 'string',
        label: 'string',
        phone_number: 'string',
        sip_uri: 'string',
        description: 'string',
        mode: 'string',
        warm_connect: 'string',
        warm_briefing_instructions: 'string',
      }),
    ),
    outbound: obj({ amd_enabled: 'boolean', voicemail: obj({ action: 'string', message: 'string' }) }),
  }),
  tools: obj({ enabled: 'boolean', tool_ids: arr('string'), system_tools: obj({ hang_up_call: 'boolean' }) }),
  webhooks: obj({
    conversation_init: obj({ url: 'string', secret: 'string', timeout_seconds: 'integer' }),
    post_call: { oneOrMany: WEBHOOK_ENDPOINT },
  }),
  knowledge_base: obj({ enabled: 'boolean', knowledge_source_ids: arr('string') }),
  analysis: obj({
    summary: obj({ enabled: 'boolean', prompt: 'string', language: 'string' }),
    data_fields: arr(obj({ name: 'string', type: 'string', description: 'string', enum_options: arr('string') })),
    criteria: arr(obj({ name: 'string', description: 'string' })),
  }),
  guardrails: obj({ focus: 'boolean', manipulation: 'boolean' }),
  llm: obj({ custom: obj({ base_url: 'string', model: 'string', api_key: 'string' }) }),
};

export const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

function checkScalar(kind: Scalar, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
  }
}

function describe(shape: Shape): string {
  if (typeof shape === 'string') return shape === 'integer' ? 'an integer' : `a ${shape}`;
  if ('object' in shape) return 'an object';
  if ('array' in shape) return 'an array';
  return 'an object or an array of objects';
}

function check(shape: Shape, value: unknown, path: string): void {
  if (value === null || value === undefined) return; // null = absent
  const fail = () => badRequest('invalid_config', `${path} must be ${describe(shape)}`);
  if (typeof shape === 'string') {
    if (!checkScalar(shape, value)) throw fail();
  } else if ('object' in shape) {
    if (!isObject(value)) throw fail();
    for (const [key, sub] of Object.entries(shape.object)) check(sub, value[key], `${path}.${key}`);
  } else if ('array' in shape) {
    if (!Array.isArray(value)) throw fail();
    value.forEach((item, i) => check(shape.array, item, `${path}[${i}]`));
  } else {
    if (Array.isArray(value)) value.forEach((item, i) => check(shape.oneOrMany, item, `${path}[${i}]`));
    else if (isObject(value)) check(shape.oneOrMany, value, path);
    else throw fail();
  }
}

/** Throws a 400 `invalid_config` naming the first field of the wrong type. */
export function validateConfig(config: unknown, path = 'config'): asserts config is JsonObject {
  if (!isObject(config)) throw badRequest('invalid_config', `${path} must be an object`);
  for (const [section, shape] of Object.entries(CONFIG_SHAPE)) check(shape, config[section], `${path}.${section}`);
  const webhooks = config['webhooks'];
  if (isObject(webhooks)) {
    const init = webhooks['conversation_init'];
    if (isObject(init)) checkUrl(init['url'], `${path}.webhooks.conversation_init.url`);
    if (isObject(init) && typeof init['timeout_seconds'] === 'number' && init['timeout_seconds'] <= 0) {
      throw badRequest('invalid_config', `${path}.webhooks.conversation_init.timeout_seconds must be positive`);
    }
    const list = postCallList(webhooks['post_call']);
    list.forEach((e, i) => checkUrl(e['url'], `${path}.webhooks.post_call[${i}].url`));
  }
}

/** A webhook url: required, absolute, http or https. */
function checkUrl(value: unknown, path: string): void {
  if (typeof value !== 'string' || value === '') throw badRequest('invalid_config', `${path} is required`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badRequest('invalid_config', `${path} must be an absolute http(s) url`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest('invalid_config', `${path} must be an absolute http(s) url`);
}

function postCallList(value: unknown): JsonObject[] {
  if (Array.isArray(value)) return value.filter(isObject);
  return isObject(value) ? [value] : [];
}

/** RFC 7396 merge patch: objects merge, `null` deletes, anything else (arrays too) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

function secretOf(entry: JsonObject): string | undefined {
  const s = entry['secret'];
  return typeof s === 'string' && s !== '' ? s : undefined;
}

/** An entry with a url and, when it has one, a non-empty secret; `secret: null` or `""` clears it. */
function endpointEntry(entry: JsonObject, previous: Map<string, string>): JsonObject {
  const out: JsonObject = { ...entry };
  if (!('secret' in entry)) {
    const kept = previous.get(String(entry['url']));
    if (kept !== undefined) out['secret'] = kept;
  } else if (secretOf(entry) === undefined) {
    delete out['secret'];
  }
  return out;
}

function storedSecrets(config: JsonObject | undefined): Map<string, string> {
  const secrets = new Map<string, string>();
  const webhooks = config?.['webhooks'];
  if (!isObject(webhooks)) return secrets;
  for (const e of postCallList(webhooks['post_call'])) {
    const s = secretOf(e);
    if (s !== undefined) secrets.set(String(e['url']), s);
  }
  const init = webhooks['conversation_init'];
  if (isObject(init)) {
    const s = secretOf(init);
    if (s !== undefined && !secrets.has(String(init['url']))) secrets.set(String(init['url']), s);
  }
  return secrets;
}

/**
 * Applies a (validated) config patch to the stored config. `webhooks.post_call` and
 * `webhooks.conversation_init` are replaced whole, not merged; an entry sent without `secret` keeps
 * the secret stored for the same url. A single `post_call` object becomes a one-element list;
 * `null` or `[]` removes the endpoints.
 */
export function applyConfigPatch(stored: JsonObject | undefined, patch: JsonObject): JsonObject {
  const secrets = storedSecrets(stored);
  const merged = mergePatch(stored ?? {}, patch) as JsonObject;
  const webhooksPatch = patch['webhooks'];
  if (!isObject(webhooksPatch)) return merged;
  const webhooks: JsonObject = isObject(merged['webhooks']) ? merged['webhooks'] : {};
  if ('post_call' in webhooksPatch) {
    const list = postCallList(webhooksPatch['post_call']).map((e) => endpointEntry(e, secrets));
    if (list.length > 0) webhooks['post_call'] = list;
    else delete webhooks['post_call'];
  }
  const init = webhooksPatch['conversation_init'];
  if (isObject(init)) webhooks['conversation_init'] = endpointEntry(init, secrets);
  merged['webhooks'] = webhooks;
  return merged;
}

/** A copy for reads: secrets (and the custom LLM api key) are write-only and never returned. */
export function redactConfig(config: JsonObject): JsonObject {
  const out = structuredClone(config);
  const webhooks = out['webhooks'];
  if (isObject(webhooks)) {
    if (Array.isArray(webhooks['post_call'])) for (const e of webhooks['post_call']) if (isObject(e)) delete e['secret'];
    if (isObject(webhooks['conversation_init'])) delete webhooks['conversation_init']['secret'];
  }
  const llm = out['llm'];
  if (isObject(llm) && isObject(llm['custom'])) delete llm['custom']['api_key'];
  return out;
}

/** Throws a 422 when the config lacks what a published version needs to answer a call. */
export function assertPublishable(config: JsonObject): void {
  const need: Array<[string, string]> = [
    ['prompt', 'system_prompt'],
    ['voice', 'voice_id'],
    ['voice', 'speaking_language'],
  ];
  for (const [section, field] of need) {
    const s = config[section];
    if (!isObject(s) || typeof s[field] !== 'string') {
      throw unprocessable('config_incomplete', `config.${section}.${field} is required to publish`);
    }
  }
}

/** The `post_call` endpoints of a stored config. */
export function postCallEndpoints(config: JsonObject): WebhookEndpoint[] {
  const webhooks = config['webhooks'];
  if (!isObject(webhooks)) return [];
  return postCallList(webhooks['post_call']).map((e) => {
    const secret = secretOf(e);
    return secret === undefined ? { url: String(e['url']) } : { url: String(e['url']), secret };
  });
}

/** The `conversation_init` endpoint of a stored config, or null. */
export function conversationInitEndpoint(config: JsonObject): (WebhookEndpoint & { timeoutSeconds?: number }) | null {
  const webhooks = config['webhooks'];
  const init = isObject(webhooks) ? webhooks['conversation_init'] : undefined;
  if (!isObject(init) || typeof init['url'] !== 'string') return null;
  const out: WebhookEndpoint & { timeoutSeconds?: number } = { url: init['url'] };
  const secret = secretOf(init);
  if (secret !== undefined) out.secret = secret;
  if (typeof init['timeout_seconds'] === 'number') out.timeoutSeconds = init['timeout_seconds'];
  return out;
}

/** Reads a string at `section.field`, or undefined. */
export function configString(config: JsonObject, section: string, field: string): string | undefined {
  const s = config[section];
  const v = isObject(s) ? s[field] : undefined;
  return typeof v === 'string' ? v : undefined;
}
