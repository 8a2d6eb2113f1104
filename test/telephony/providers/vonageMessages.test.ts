import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkVonageAudioFrame,
  parseVonageCommand,
  parseVonageContentType,
  parseVonageMessage,
  vonageClearMessage,
  vonageFrameBytes,
  vonageNotifyMessage,
} from '../../../src/telephony/providers/vonageMessages.js';
import { assertOnlyProtocolErrors, awkwardText, fault } from './fuzz.js';

describe('Vonage messages in', () => {
  it('websocket:connected gives the rate from the content type and every other field as a header', () => {
    expect(
      parseVonageMessage('{"event":"websocket:connected","content-type":"audio/l16;rate=16000","token":"t1","caller":"+4420","n":3}'),
    ).toEqual({
      event: 'websocket:connected',
      contentType: 'audio/l16;rate=16000',
      sampleRate: 16000,
      headers: { token: 't1', caller: '+4420', n: '3' },
    });
    expect(parseVonageContentType('audio/L16; rate=8000')).toBe(8000);
  });

  it('websocket:connected keeps object, array and null headers as their JSON text', () => {
    const connected = {
      event: 'websocket:connected',
      'content-type': 'audio/l16;rate=8000',
      app: { name: 'shop', tags: ['a', 'b'] },
      legs: [1, 2],
      none: null,
      ok: true,
    };
    const m = parseVonageMessage(JSON.stringify(connected));
    expect(m).toMatchObject({ headers: { app: '{"name":"shop","tags":["a","b"]}', legs: '[1,2]', none: 'null', ok: 'true' } });
    if (m.event !== 'websocket:connected') throw new Error('expected websocket:connected');
    expect(JSON.parse(m.headers['app'] ?? '')).toEqual(connected.app);
  });

  it('every header of a connected message survives: JSON.parse of its text gives the value back', () => {
    // JSON text cannot tell -0 from 0: values go through one round of JSON first.
    const value = fc
      .jsonValue()
      .map((v) => JSON.parse(JSON.stringify(v)) as unknown)
      .filter((v) => typeof v !== 'string');
    const name = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== 'event' && k !== 'content-type' && k !== '__proto__');
    fc.assert(
      fc.property(fc.dictionary(name, fc.oneof(fc.string(), value), { maxKeys: 6 }), (extra) => {
        const text = JSON.stringify({ event: 'websocket:connected', 'content-type': 'audio/l16;rate=16000', ...extra });
        const m = parseVonageMessage(text);
        if (m.event !== 'websocket:connected') throw new Error('expected websocket:connected');
        expect(Object.keys(m.headers).sort()).toEqual(Object.keys(extra).sort());
        for (const [k, v] of Object.entries(extra)) {
          expect(typeof v === 'string' ? m.headers[k] : JSON.parse(m.headers[k] ?? '')).toEqual(v);
        }
      }),
    );
  });

  it('cleared, notify (with our name in the payload) and dtmf (digit at the top level) keep their fields', () => {
    expect(parseVonageMessage('{"event":"websocket:cleared"}')).toEqual({ event: 'websocket:cleared' });
    expect(parseVonageMessage('{"event":"websocket:notify","payload":{"name":"vw:2","x":1}}')).toEqual({
      event: 'websocket:notify',
      name: 'vw:2',
      payload: { name: 'vw:2', x: 1 },
    });
    expect(parseVonageMessage('{"event":"websocket:notify","payload":{"reply_id":"r"}}')).toMatchObject({ name: '' });
    expect(parseVonageMessage('{"event":"websocket:dtmf","digit":"5","duration":260}')).toEqual({
      event: 'websocket:dtmf',
      digit: '5',
      duration: 260,
    });
    expect(parseVonageMessage('{"event":"websocket:other"}')).toEqual({ event: 'unknown', name: 'websocket:other' });
  });

  it('a content type other than L16 at 8 or 16 kHz, or a digitless dtmf, is refused by field', () => {
    expect(fault(() => parseVonageMessage('{"event":"websocket:connected","content-type":"audio/l16;rate=44100"}')).field).toBe(
      'content-type',
    );
    expect(fault(() => parseVonageMessage('{"event":"websocket:connected","content-type":"audio/pcmu"}')).field).toBe('content-type');
    expect(fault(() => parseVonageMessage('{"event":"websocket:connected"}')).field).toBe('message.content-type');
    expect(fault(() => parseVonageMessage('{"event":"websocket:dtmf","duration":3}')).field).toBe('message.digit');
  });

  it('audio frames are 20 ms: 320 bytes at 8 kHz, 640 at 16 kHz; other sizes are refused', () => {
    expect(vonageFrameBytes(8000)).toBe(320);
    expect(vonageFrameBytes(16000)).toBe(640);
    expect(checkVonageAudioFrame(new Uint8Array(640), 16000)).toBe(320);
    expect(fault(() => checkVonageAudioFrame(new Uint8Array(320), 16000)).field).toBe('audio');
    expect(checkVonageAudioFrame(new Uint8Array(100), 16000, false)).toBe(50);
    expect(fault(() => checkVonageAudioFrame(new Uint8Array(101), 16000, false)).field).toBe('audio');
  });

  it('any text either parses or is a TelephonyError, never anything else', () => {
    assertOnlyProtocolErrors(
      parseVonageMessage,
      'event',
      ['websocket:connected', 'websocket:cleared', 'websocket:notify', 'websocket:dtmf', 'other'],
      ['content-type', 'payload', 'digit', 'duration'],
    );
  });
});

describe('Vonage messages out', () => {
  it('clear and notify are the JSON commands Vonage documents', () => {
    expect(JSON.parse(vonageClearMessage())).toEqual({ action: 'clear' });
    expect(JSON.parse(vonageNotifyMessage('a"b'))).toEqual({ action: 'notify', payload: { name: 'a"b' } });
  });

  it('what we build reads back as what was meant, for any name', () => {
    fc.assert(
      fc.property(awkwardText, (name) => {
        expect(parseVonageCommand(vonageNotifyMessage(name))).toEqual({ action: 'notify', name, payload: { name } });
        expect(parseVonageCommand(vonageClearMessage())).toEqual({ action: 'clear' });
        // and Vonage's echo of it parses to the same name
        expect(parseVonageMessage(JSON.stringify({ event: 'websocket:notify', payload: { name } }))).toMatchObject({ name });
      }),
    );
  });

  it('reading back any text gives a command or a TelephonyError', () => {
    assertOnlyProtocolErrors(parseVonageCommand, 'action', ['clear', 'notify'], ['payload']);
  });
});
