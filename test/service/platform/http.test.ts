/**
 * The platform's HTTP helpers over a real server: an oversized body is refused without being
 * read, and the connection closed (issue 19, item 14).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../../src/service/platform/http.js';
import { expectRefusedAndClosed } from '../../support/oversizedPost.js';
import { startPlatform, TOKEN, type PlatformServer } from './helpers.js';

let p: PlatformServer;
beforeEach(async () => {
  p = await startPlatform();
});
afterEach(async () => {
  await p.close();
});

describe('platform request bodies', () => {
  it('an oversized body that stalls gets 413 with Connection: close and the socket is closed at once, unread', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    await expectRefusedAndClosed(
      `${p.url}/v1/agent/agents`,
      auth,
      [
        [64 * 1024, 64 * 1024 * 1024],
        [MAX_BODY_BYTES + 64 * 1024, undefined],
      ],
      '"reason":"payload_too_large"',
    );
    // The platform still serves.
    expect((await p.call('POST', '/v1/agent/agents', { name: 'A' })).status).toBe(201);
  });

  it('a body of exactly the limit is read whole (and then judged on its content)', async () => {
    const frame = JSON.stringify({ name: 'A', pad: '' });
    const body = JSON.stringify({ name: 'A', pad: 'x'.repeat(MAX_BODY_BYTES - frame.length) });
    expect(body.length).toBe(MAX_BODY_BYTES);
    const r = await p.call('POST', '/v1/agent/agents', body);
    expect(r.body).toMatchObject({ status: 422, reason: 'json_too_large' });
  });
});
