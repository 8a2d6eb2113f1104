/**
 * The escape hatch of the closed request types.
 *
 * Request and config types (`TtsRequest`, `AgentCreateParams`, `AgentConfig` and its sections,
 * `SessionCreateParams`) name every field they know and nothing else, so TypeScript's
 * excess-property check rejects a misspelt field (`formt: 'mp3'`) in an object literal. The API
 * grows faster than these types, though, and at run time every unknown field is sent as given. To
 * send a field the types do not know yet, spread `unknownFields({...})` into the literal, at the
 * level where the field belongs:
 *
 * ```ts
 * await client.tts.streamWithTimestamps({ text: 'Hi.', format: 'mp3', ...unknownFields({ new_knob: 2 }) });
 * await client.agents.updateConfig(id, { voice: { voice_id: 'v', ...unknownFields({ accent: 'scottish' }) } });
 * ```
 *
 * The fields written out next to the spread are still checked; only the ones inside it are not.
 */

/**
 * The type of {@link unknownFields}' result: no properties as far as TypeScript knows, so
 * spreading it adds nothing to the literal's checked shape.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- shapeless on purpose: the spread adds no checked keys
export interface UnknownFields {}

/**
 * Marks `fields` as wire fields the types do not know yet; spread the result into a request
 * literal. At run time it is `fields` itself.
 */
export function unknownFields(fields: Readonly<Record<string, unknown>>): UnknownFields {
  return fields;
}
