/**
 * One test per validation rule, over HTTP: the status and the error body {status, message,
 * reason, field, rule}.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BYTES, MAX_TEXT_LENGTH } from '../../src/protocol/ttsRequest.js';
import { startLocalService, TTS_PATH, type LocalService } from '../../src/service/index.js';
import { expectRefusedAndClosed } from '../support/oversizedPost.js';
import { postTts } from './helpers.js';

let svc: LocalService;
beforeAll(async () => {
  svc = await startLocalService();
});
afterAll(async () => {
  await svc.close();
});

type Row = [name: string, body: unknown, status: number, field: string, rule: string];

const ROWS: Row[] = [
  ['text is required', {}, 422, 'text', 'required'],
  ['text must be a string', { text: 5 }, 422, 'text', 'type'],
  ['text must not be empty', { text: '   ' }, 422, 'text', 'non_empty'],
  ['text above the maximum length is 413', { text: 'a'.repeat(MAX_TEXT_LENGTH + 1) }, 413, 'text', 'max_length'],
  ['temperature must be a number', { text: 'x', temperature: '0.5' }, 422, 'temperature', 'type'],
  ['temperature is 0 to 1', { text: 'x', temperature: 1.5 }, 422, 'temperature', 'range'],
  ['top_p is 0 to 1', { text: 'x', top_p: -0.1 }, 422, 'top_p', 'range'],
  ['references must be an array', { text: 'x', references: {} }, 422, 'references', 'type'],
  ['a reference needs text', { text: 'x', references: [{ audio: 'AAAA' }] }, 422, 'references[0].text', 'type'],
  ['reference_id must be a string', { text: 'x', reference_id: 7 }, 422, 'reference_id', 'type'],
  ['reference_id must name a known voice', { text: 'x', reference_id: 'nobody' }, 422, 'reference_id', 'unknown_voice'],
  ['prosody must be an object', { text: 'x', prosody: 'fast' }, 422, 'prosody', 'type'],
  ['prosody.speed is 0.5 to 2', { text: 'x', prosody: { speed: 3 } }, 422, 'prosody.speed', 'range'],
  ['prosody.volume is -20 to 20 dB', { text: 'x', prosody: { volume: -40 } }, 422, 'prosody.volume', 'range'],
  [
    'prosody.normalize_loudness is a boolean',
    { text: 'x', prosody: { normalize_loudness: 'yes' } },
    422,
    'prosody.normalize_loudness',
    'type',
  ],
  ['chunk_length is at least 100', { text: 'x', chunk_length: 99 }, 422, 'chunk_length', 'range'],
  ['chunk_length is at most 300', { text: 'x', chunk_length: 301 }, 422, 'chunk_length', 'range'],
  ['chunk_length is an integer', { text: 'x', chunk_length: 150.5 }, 422, 'chunk_length', 'integer'],
  ['normalize is a boolean', { text: 'x', normalize: 1 }, 422, 'normalize', 'type'],
  ['format is wav, pcm, mp3 or opus', { text: 'x', format: 'flac' }, 422, 'format', 'enum'],
  ['sample_rate is an integer or null', { text: 'x', sample_rate: '8000' }, 422, 'sample_rate', 'type'],
  ['sample_rate is an integer', { text: 'x', format: 'pcm', sample_rate: 16000.5 }, 422, 'sample_rate', 'integer'],
  ['pcm takes 8000 to 48000', { text: 'x', format: 'pcm', sample_rate: 96000 }, 422, 'sample_rate', 'sample_rate'],
  ['wav takes 8000 to 48000', { text: 'x', format: 'wav', sample_rate: 7999 }, 422, 'sample_rate', 'sample_rate'],
  ['mp3 takes the MP3 rates', { text: 'x', format: 'mp3', sample_rate: 44000 }, 422, 'sample_rate', 'sample_rate'],
  ['opus takes 8/12/16/24/48 kHz', { text: 'x', format: 'opus', sample_rate: 44100 }, 422, 'sample_rate', 'sample_rate'],
  ['mp3_bitrate is 64, 128 or 192 (even for pcm)', { text: 'x', format: 'pcm', mp3_bitrate: 320 }, 422, 'mp3_bitrate', 'enum'],
  ['opus_bitrate is -1000, 24000, 32000, 48000 or 64000', { text: 'x', opus_bitrate: 16000 }, 422, 'opus_bitrate', 'enum'],
  ['latency is low, normal or balanced', { text: 'x', latency: 'fast' }, 422, 'latency', 'enum'],
  ['max_new_tokens is an integer', { text: 'x', max_new_tokens: 10.5 }, 422, 'max_new_tokens', 'integer'],
  ['max_new_tokens is at least 1', { text: 'x', max_new_tokens: 0 }, 422, 'max_new_tokens', 'range'],
  ['repetition_penalty is above 0', { text: 'x', repetition_penalty: 0 }, 422, 'repetition_penalty', 'range'],
  ['min_chunk_length is 0 to 100', { text: 'x', min_chunk_length: 101 }, 422, 'min_chunk_length', 'range'],
  ['min_chunk_length is an integer', { text: 'x', min_chunk_length: 5.5 }, 422, 'min_chunk_length', 'integer'],
  [
    'condition_on_previous_chunks is a boolean',
    { text: 'x', condition_on_previous_chunks: 'no' },
    422,
    'condition_on_previous_chunks',
    'type',
  ],
  ['early_stop_threshold is 0 to 1', { text: 'x', early_stop_threshold: 2 }, 422, 'early_stop_threshold', 'range'],
  ['features is an array', { text: 'x', features: 'quality-guard' }, 422, 'features', 'type'],
  ['features holds strings', { text: 'x', features: [1] }, 422, 'features[0]', 'type'],
  ['pronunciation_dictionary is an array', { text: 'x', pronunciation_dictionary: {} }, 422, 'pronunciation_dictionary', 'type'],
  [
    'a dictionary item is a reference or inline',
    { text: 'x', pronunciation_dictionary: [{ foo: 1 }] },
    422,
    'pronunciation_dictionary[0]',
    'shape',
  ],
  [
    'an inline entry has alias or phonemes',
    { text: 'x', pronunciation_dictionary: [{ entries: [{ text: 'a' }] }] },
    422,
    'pronunciation_dictionary[0].entries[0]',
    'shape',
  ],
  [
    'an inline entry needs text',
    { text: 'x', pronunciation_dictionary: [{ entries: [{ alias: 'b' }] }] },
    422,
    'pronunciation_dictionary[0].entries[0].text',
    'type',
  ],
  [
    'a reference needs a version',
    { text: 'x', pronunciation_dictionary: [{ id: 'names' }] },
    422,
    'pronunciation_dictionary[0].version',
    'type',
  ],
  [
    'a reference must be known to the service',
    { text: 'x', pronunciation_dictionary: [{ id: 'names', version: '9' }] },
    422,
    'pronunciation_dictionary[0]',
    'unknown_dictionary',
  ],
  [
    'phonemes cannot escape espeak input',
    { text: 'x', pronunciation_dictionary: [{ entries: [{ text: 'a', phonemes: 'a]] <b>' }] }] },
    422,
    'pronunciation_dictionary[0].entries[0].phonemes',
    'phonemes',
  ],
  ['the body must be an object', [1, 2], 400, 'body', 'type'],
];

describe('request validation over HTTP', () => {
  it.each(ROWS)('%s', async (_name, body, status, field, rule) => {
    const r = await postTts(svc, body);
    expect(r.status).toBe(status);
    const json = r.json as Record<string, unknown>;
    expect(json).toMatchObject({ status, field, rule });
    expect(typeof json.message).toBe('string');
    expect(json.message).toContain(field);
    expect(typeof json.reason).toBe('string');
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });

  it('a body that is not JSON is 400 invalid_json', async () => {
    const r = await postTts(svc, '{"text": ');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ status: 400, reason: 'invalid_json' });
  });

  it('a body over the byte limit that stalls gets 413 with Connection: close and the socket is closed at once, unread', async () => {
    const url = `${svc.baseUrl}${TTS_PATH}`;
    const auth = { authorization: `Bearer ${svc.token}` };
    await expectRefusedAndClosed(
      url,
      auth,
      [
        [64 * 1024, 64 * 1024 * 1024],
        [MAX_REQUEST_BYTES + 64 * 1024, undefined],
      ],
      '"reason":"request_too_large"',
    );
  });

  it('a body over the byte limit is 413 request_too_large', async () => {
    const r = await postTts(svc, JSON.stringify({ text: 'x', pad: 'y'.repeat(1024 * 1024 + 10) }));
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ status: 413, reason: 'request_too_large' });
  });

  it('the neural-only fields and unknown fields are accepted', async () => {
    const r = await postTts(svc, {
      text: 'Fine.',
      format: 'pcm',
      temperature: 0,
      top_p: 1,
      repetition_penalty: 1.5,
      max_new_tokens: 10,
      early_stop_threshold: 0.5,
      condition_on_previous_chunks: false,
      features: ['quality-guard'],
      references: [{ audio: 'AAAA', text: 'ref' }],
      something_new: { a: 1 },
    });
    expect(r.status).toBe(200);
    expect(r.events.length).toBeGreaterThan(0);
  });
});

describe('authentication', () => {
  const url = (): string => `${svc.baseUrl}/v1/tts/stream/with-timestamp`;
  const body = JSON.stringify({ text: 'x', format: 'pcm' });

  it('no Authorization header is 401 missing_token', async () => {
    const res = await fetch(url(), { method: 'POST', body });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ status: 401, reason: 'missing_token' });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('a header that is not Bearer is 401 malformed_authorization', async () => {
    const res = await fetch(url(), { method: 'POST', body, headers: { authorization: `Basic ${svc.token}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ status: 401, reason: 'malformed_authorization' });
  });

  it('a wrong token is 403 invalid_token', async () => {
    const res = await fetch(url(), { method: 'POST', body, headers: { authorization: 'Bearer wrong' } });
    expect(res.status).toBe(403);
    const json = await res.json();
    expect(json).toMatchObject({ status: 403, reason: 'invalid_token' });
    expect(JSON.stringify(json)).not.toContain(svc.token);
  });

  it('unknown paths are 404 and GET on the speech path is 405, both with x-request-id', async () => {
    const a = await fetch(`${svc.baseUrl}/v2/nothing`, { headers: { authorization: `Bearer ${svc.token}` } });
    expect(a.status).toBe(404);
    expect(await a.json()).toMatchObject({ status: 404, reason: 'not_found' });
    const b = await fetch(url(), { headers: { authorization: `Bearer ${svc.token}` } });
    expect(b.status).toBe(405);
    expect(b.headers.get('x-request-id')).toBeTruthy();
  });
});
