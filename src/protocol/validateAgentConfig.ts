/**
 * Validation of agent requests: what the spec pins down, nothing more.
 *
 * - Types of every field in the config table.
 * - The minimal creation request's fields: `name`, `config.prompt.system_prompt`,
 *   `config.voice.voice_id`, `config.voice.speaking_language` (and `description`, which defaults
 *   to `''`).
 * - Enum values "not shown beyond the values listed" are checked as strings only, never rejected.
 * - Unknown fields pass through, unchecked.
 *
 * Exported so a server implementing the same API (the local service) can share the rules.
 *
 * @see docs/service-interface.md#agents
 */
import { RequestValidationError } from '../errors.js';

type FieldType =
  | 'string'
  | 'boolean'
  | 'integer'
  | 'number'
  | 'string[]'
  | { object: Schema; nullable?: boolean }
  | { array: Schema; nullable?: boolean; singleObjectAllowed?: boolean };

interface Schema {
  [field: string]: FieldType;
}

const TRANSFER_DESTINATION: Schema = {
  type: 'string',
  label: 'string',
  phone_number: 'string',
  sip_uri: 'string',
  description: 'string',
  mode: 'string',
  warm_connect: 'string',
  warm_briefing_instructions: 'string',
};

/** The config table of the spec, section by section. */
export const AGENT_CONFIG_SCHEMA: Schema = {
  prompt: { object: { system_prompt: 'string', first_message: 'string', first_message_prompt: 'string' } },
  voice: {
    object: { voice_id: 'string', speaking_language: 'string', expressive: 'boolean', keyterms: 'string[]', speed: 'number' },
  },
  conversation: {
    object: {
      max_duration_seconds: 'integer',
      interruptible: 'boolean',
      reengage_enabled: 'boolean',
      hangup_after_seconds: 'integer',
      hangup_farewell_enabled: 'boolean',
      record_audio: 'boolean',
      timezone: 'string',
      transfer_destinations: { array: TRANSFER_DESTINATION },
      outbound: {
        object: { amd_enabled: 'boolean', voicemail: { object: { action: 'string', message: 'string' } } },
      },
    },
  },
  tools: {
    object: { enabled: 'boolean', tool_ids: 'string[]', system_tools: { object: { hang_up_call: 'boolean' } } },
  },
  webhooks: {
    object: {
      conversation_init: {
        object: { url: 'string', secret: 'string', timeout_seconds: 'integer' },
        nullable: true,
      },
      post_call: { array: { url: 'string', secret: 'string' }, nullable: true, singleObjectAllowed: true },
    },
  },
  knowledge_base: { object: { enabled: 'boolean', knowledge_source_ids: 'string[]' } },
  analysis: {
    object: {
      summary: { object: { enabled: 'boolean', prompt: 'string', language: 'string' } },
      data_fields: { array: { name: 'string', type: 'string', description: 'string', enum_options: 'string[]' } },
      criteria: { array: { name: 'string', description: 'string' } },
    },
  },
  guardrails: { object: { focus: 'boolean', manipulation: 'boolean' } },
  llm: { object: { custom: { object: { base_url: 'string', model: 'string', api_key: 'string' } } } },
};

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && !Number.isInteger(v)) return 'non-integer number';
  return typeof v;
}

function fail(field: string, rule: string, got: unknown): never {
  throw new RequestValidationError(field, rule, `${field} must be ${rule}, got ${typeName(got)}`);
}

function checkValue(path: string, type: FieldType, value: unknown): void {
  if (typeof type === 'string') {
    switch (type) {
      case 'string':
        if (typeof value !== 'string') fail(path, 'a string', value);
        return;
      case 'boolean':
        if (typeof value !== 'boolean') fail(path, 'a boolean', value);
        return;
      case 'number':
        if (typeof value !== 'number' || !Number.isFinite(value)) fail(path, 'a finite number', value);
        return;
      case 'integer':
        if (typeof value !== 'number' || !Number.isSafeInteger(value)) fail(path, 'an integer', value);
        return;
      case 'string[]':
        if (!Array.isArray(value)) fail(path, 'an array of strings', value);
        value.forEach((item, i) => {
          if (typeof item !== 'string') fail(`${path}[${i}]`, 'a string', item);
        });
        return;
    }
  }
  if (value === null && type.nullable) return;
  if ('object' in type) {
    if (!isPlainObject(value)) fail(path, type.nullable ? 'an object or null' : 'an object', value);
    checkObject(path, type.object, value);
    return;
  }
  if (isPlainObject(value) && type.singleObjectAllowed) {
    checkObject(path, type.array, value);
    return;
  }
  if (!Array.isArray(value)) fail(path, type.nullable ? 'an array of objects or null' : 'an array of objects', value);
  value.forEach((item, i) => {
    if (!isPlainObject(item)) fail(`${path}[${i}]`, 'an object', item);
    checkObject(`${path}[${i}]`, type.array, item);
  });
}

function checkObject(path: string, schema: Schema, obj: Record<string, unknown>): void {
  for (const key of Object.keys(schema)) {
    if (!Object.hasOwn(obj, key)) continue;
    const value = obj[key];
    if (value === undefined) continue;
    checkValue(path ? `${path}.${key}` : key, schema[key] as FieldType, value);
  }
}

/** Checks the types of a (partial) config, e.g. the body of `updateConfig`. */
export function validateAgentConfig(config: unknown, path = 'config'): void {
  if (!isPlainObject(config)) fail(path, 'an object', config);
  checkObject(path, AGENT_CONFIG_SCHEMA, config);
}

function requireString(obj: Record<string, unknown> | undefined, key: string, path: string): void {
  const value = obj?.[key];
  if (value === undefined) {
    throw new RequestValidationError(path, 'required', `${path} is required in an agent creation request`);
  }
  if (typeof value !== 'string') fail(path, 'a string', value);
}

/** Checks an agent creation request: the minimal request's fields and every type. */
export function validateAgentCreate(params: unknown): void {
  if (!isPlainObject(params)) fail('request', 'an object', params);
  requireString(params, 'name', 'name');
  if (params['description'] !== undefined && typeof params['description'] !== 'string') {
    fail('description', 'a string', params['description']);
  }
  const config = params['config'];
  if (config === undefined) {
    throw new RequestValidationError(
      'config',
      'required',
      'config is required: the minimal request carries config.prompt and config.voice',
    );
  }
  validateAgentConfig(config);
  const c = config as Record<string, unknown>;
  const prompt = isPlainObject(c['prompt']) ? c['prompt'] : undefined;
  const voice = isPlainObject(c['voice']) ? c['voice'] : undefined;
  requireString(prompt, 'system_prompt', 'config.prompt.system_prompt');
  requireString(voice, 'voice_id', 'config.voice.voice_id');
  requireString(voice, 'speaking_language', 'config.voice.speaking_language');
}
