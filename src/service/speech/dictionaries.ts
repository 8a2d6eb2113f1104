/**
 * Server-managed pronunciation dictionaries, for `pronunciation_dictionary` references
 * `{id, version}`. They come from service options (`dictionaries`) and from a directory
 * (`dictionaryDir`, CLI: env `VOICEWIRE_DICTIONARY_DIR`) holding `<id>/<version>.json`, each file
 * an inline dictionary `{"entries": [{"text": …, "alias": …} | {"text": …, "phonemes": …}]}`.
 * An unknown reference → 422 (rule `unknown_dictionary`).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RequestValidationError } from '../../errors.js';
import { validateTtsRequest, type PronunciationDictionaryInline } from '../../protocol/ttsRequest.js';

/** `id` and `version` must be plain names, so a reference can never walk out of the directory. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export class DictionaryStore {
  private readonly cache = new Map<string, PronunciationDictionaryInline>();

  constructor(
    private readonly dir: string | undefined,
    given: Record<string, Record<string, PronunciationDictionaryInline>> = {},
  ) {
    for (const [id, versions] of Object.entries(given)) {
      for (const [version, dict] of Object.entries(versions)) this.cache.set(`${id}@${version}`, dict);
    }
  }

  async resolve(id: string, version: string, field: string): Promise<PronunciationDictionaryInline> {
    const key = `${id}@${version}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const unknown = (): never => {
      throw new RequestValidationError(
        field,
        'unknown_dictionary',
        `${field}: unknown pronunciation dictionary ${JSON.stringify(id)} version ${JSON.stringify(version)}`,
      );
    };
    if (!this.dir || !SAFE_NAME.test(id) || !SAFE_NAME.test(version)) return unknown();
    let raw: string;
    try {
      raw = await readFile(join(this.dir, id, `${version}.json`), 'utf8');
    } catch {
      return unknown();
    }
    let dict: PronunciationDictionaryInline;
    try {
      const checked = validateTtsRequest({ text: '-', pronunciation_dictionary: [JSON.parse(raw)] });
      const item = checked.pronunciation_dictionary[0];
      if (!item || !('entries' in item)) throw new Error('not an inline dictionary');
      dict = item;
    } catch (err) {
      throw new RequestValidationError(
        field,
        'bad_dictionary',
        `${field}: dictionary ${id}@${version} on the server is invalid (${(err as Error).message})`,
      );
    }
    this.cache.set(key, dict);
    return dict;
  }
}
