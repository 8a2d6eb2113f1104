import { describe, expect, it } from 'vitest';
import { LOW_FIRST_CHUNK_MIN_CHARS, splitTextIntoChunks } from '../../src/service/speech/textChunks.js';

const SENTENCES =
  'First sentence is here. Second one follows, with a clause. Third is short. ' +
  'The fourth sentence is a good deal longer than the others, and it goes on for a while. Fifth!';

describe('text chunks', () => {
  it('normal packs whole sentences up to chunk_length: the fewest chunks', () => {
    const chunks = splitTextIntoChunks(SENTENCES, { chunkLength: 100, minChunkLength: 50, latency: 'normal' });
    expect(chunks.length).toBe(2);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(100);
    expect(chunks.join(' ')).toBe(SENTENCES);
  });

  it('balanced gives smaller chunks, merging pieces under min_chunk_length', () => {
    const normal = splitTextIntoChunks(SENTENCES, { chunkLength: 300, minChunkLength: 20, latency: 'normal' });
    const balanced = splitTextIntoChunks(SENTENCES, { chunkLength: 300, minChunkLength: 20, latency: 'balanced' });
    expect(normal).toHaveLength(1);
    expect(balanced.join(' ')).toBe(SENTENCES);
    // "Third is short." (15 chars) is under 20: merged with the next sentence; so is the short tail "Fifth!".
    expect(balanced).toEqual([
      'First sentence is here.',
      'Second one follows, with a clause.',
      'Third is short. The fourth sentence is a good deal longer than the others, and it goes on for a while. Fifth!',
    ]);
  });

  it('low makes the first chunk the first clause, for the fastest first audio', () => {
    const text = 'Well, hello there, my friend. How are you today?';
    const low = splitTextIntoChunks(text, { chunkLength: 300, minChunkLength: 50, latency: 'low' });
    expect(low[0]).toBe('Well, hello there,');
    expect(low[0]!.length).toBeGreaterThanOrEqual(LOW_FIRST_CHUNK_MIN_CHARS);
    expect(low.join(' ')).toBe(text);
  });

  it('a sentence longer than chunk_length is cut at clauses, then at words', () => {
    const long = `${'word '.repeat(70).trim()}, and ${'more '.repeat(30).trim()}.`;
    const chunks = splitTextIntoChunks(long, { chunkLength: 100, minChunkLength: 0, latency: 'normal' });
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(100);
    expect(chunks.join(' ').split(/\s+/)).toEqual(long.split(/\s+/));
  });

  it('a single token longer than chunk_length is cut by characters', () => {
    const chunks = splitTextIntoChunks('x'.repeat(250), { chunkLength: 100, minChunkLength: 0, latency: 'normal' });
    expect(chunks.map((c) => c.length)).toEqual([100, 100, 50]);
  });

  it('a period, colon or comma inside a token ends nothing: "3.5", "10:30", "v2.0.1" stay whole', () => {
    const text = 'We have 3.5 pears at 10:30, and v2.0.1 is out. Then: more.';
    expect(splitTextIntoChunks(text, { chunkLength: 100, minChunkLength: 0, latency: 'balanced' })).toEqual([
      'We have 3.5 pears at 10:30, and v2.0.1 is out.',
      'Then: more.',
    ]);
    expect(splitTextIntoChunks(text, { chunkLength: 100, minChunkLength: 0, latency: 'low' })[0]).toBe('We have 3.5 pears at 10:30,');
  });

  it('sentences end at terminators with closing quotes; CJK terminators need no space', () => {
    expect(
      splitTextIntoChunks('He said "stop." Then left. 末尾。次の文！', { chunkLength: 100, minChunkLength: 0, latency: 'balanced' }),
    ).toEqual(['He said "stop."', 'Then left.', '末尾。', '次の文！']);
  });

  it('whitespace-only text has no chunks', () => {
    expect(splitTextIntoChunks(' \n ', { chunkLength: 300, minChunkLength: 50, latency: 'normal' })).toEqual([]);
  });
});
