import fc from 'fast-check';

/** Generators of speech event streams for the property tests. */
type Fault = 'none' | 'badB64' | 'negSeq' | 'missingSeq' | 'badJson' | 'badAlign' | 'contentType' | 'infOffset' | 'unpadded';
type AlignKind = 'null' | 'absent' | 'repeat' | 'new';

interface Msg {
  kind: 'msg';
  audio: Uint8Array;
  content: string | undefined;
  align: AlignKind;
  segs: { text: string; start: number; end: number }[];
  seq: number;
  off: number;
  order: number[];
  pretty: boolean;
  escapeSlash: boolean;
  noSpace: boolean;
  explicitMessage: boolean;
  /** A key the stage does not use, and its raw JSON value (some invalid, one spelling a known key). */
  extra: [string, string] | undefined;
  fault: Fault;
}
type Item =
  Msg | { kind: 'comment'; text: string } | { kind: 'other'; data: string } | { kind: 'retry'; v: number } | { kind: 'id'; v: string };

const segArb = fc
  .record({
    text: fc.string({ unit: 'grapheme', maxLength: 5 }),
    start: fc.double({ min: 0, max: 30, noNaN: true, noDefaultInfinity: true }),
    len: fc.double({ min: 0, max: 2, noNaN: true, noDefaultInfinity: true }),
  })
  .map((s) => ({ text: s.text, start: s.start, end: s.start + s.len }));

const msgArb: fc.Arbitrary<Msg> = fc.record({
  kind: fc.constant('msg' as const),
  // Mostly short audio; sometimes long enough for the wasm SIMD blocks (≥ 64 base64 characters).
  audio: fc.oneof(
    { weight: 4, arbitrary: fc.uint8Array({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 48, maxLength: 400 }) },
  ),
  content: fc.option(
    fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }),
      fc.constantFrom('héllo wörld', 'こんにちは', 'a "quoted" \\ word', 'tab\there'),
    ),
    { nil: undefined },
  ),
  align: fc.constantFrom<AlignKind>('null', 'absent', 'repeat', 'repeat', 'new'),
  segs: fc.array(segArb, { maxLength: 4 }),
  seq: fc.integer({ min: 0, max: 2 }),
  off: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.double({ min: 0, max: 100, noNaN: true, noDefaultInfinity: true })),
  order: fc.array(fc.integer(), { minLength: 5, maxLength: 5 }),
  pretty: fc.boolean(),
  escapeSlash: fc.boolean(),
  noSpace: fc.boolean(),
  explicitMessage: fc.boolean(),
  extra: fc.option(
    fc.constantFrom<[string, string]>(
      ['is_final', 'true'],
      ['meta', '{"a":[1,"}]"],"b":null}'],
      ['a_key_longer_than_any_known_one', '"v \\" w"'],
      ['n', '-1.5e3'],
      ['chunk\\u005fseq', '7'],
      ['bad', 'tru'],
      ['bad2', '{"a":'],
      ['k\\"q', '1'],
    ),
    { nil: undefined, freq: 3 },
  ),
  fault: fc.oneof(
    { weight: 30, arbitrary: fc.constant<Fault>('none') },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Fault>('badB64', 'negSeq', 'missingSeq', 'badJson', 'badAlign', 'contentType', 'infOffset', 'unpadded'),
    },
  ),
});

const itemArb: fc.Arbitrary<Item> = fc.oneof(
  { weight: 8, arbitrary: msgArb },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('comment' as const), text: fc.string({ maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('other' as const), data: fc.string({ maxLength: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('retry' as const), v: fc.nat(5000) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('id' as const), v: fc.string({ maxLength: 4 }) }) },
);

function eventJson(m: Msg, lastSnap: Map<number, string>): string {
  let b64 = Buffer.from(m.audio).toString('base64');
  if (m.fault === 'badB64') b64 = b64.slice(0, 2) + '!' + b64.slice(3);
  if (m.fault === 'unpadded') b64 = b64.replace(/=+$/, '') + (b64.endsWith('=') ? '' : 'QQ');
  if (m.escapeSlash) b64 = b64.replaceAll('/', '\\/');
  let alignText: string | undefined;
  if (m.align === 'null') alignText = 'null';
  else if (m.align === 'repeat' && lastSnap.has(m.seq)) alignText = lastSnap.get(m.seq);
  else if (m.align !== 'absent') {
    const segs = m.fault === 'badAlign' ? [...m.segs, { text: 'x', start: 2, end: 1 }] : m.segs;
    alignText = JSON.stringify({ audio_duration: 1.5, segments: segs });
    lastSnap.set(m.seq, alignText);
  }
  const pairs: [string, string][] = [['audio_base64', `"${b64}"`]];
  if (m.content !== undefined || m.fault === 'contentType')
    pairs.push(['content', m.fault === 'contentType' ? '5' : JSON.stringify(m.content)]);
  if (alignText !== undefined) pairs.push(['alignment', alignText]);
  if (m.fault !== 'missingSeq') pairs.push(['chunk_seq', m.fault === 'negSeq' ? '-1' : String(m.seq)]);
  pairs.push(['chunk_audio_offset_sec', m.fault === 'infOffset' ? '1e999' : JSON.stringify(m.off)]);
  if (m.extra !== undefined) pairs.push(m.extra);
  pairs.sort((a, b) => m.order[a[0].length % 5]! - m.order[b[0].length % 5]!);
  const sep = m.pretty ? ',\n  ' : ',';
  let text = `{${m.pretty ? '\n  ' : ''}${pairs.map(([k, v]) => `"${k}":${m.pretty ? ' ' : ''}${v}`).join(sep)}${m.pretty ? '\n' : ''}}`;
  if (m.fault === 'badJson') text = text.slice(0, -1);
  return text;
}

export function buildStream(items: Item[], bom: boolean, eols: string[], cut: number): Uint8Array {
  const lines: string[] = [];
  const lastSnap = new Map<number, string>();
  for (const it of items) {
    if (it.kind === 'msg') {
      if (it.explicitMessage) lines.push('event: message');
      for (const l of eventJson(it, lastSnap).split('\n')) lines.push((it.noSpace ? 'data:' : 'data: ') + l);
    } else if (it.kind === 'comment') lines.push(`:${it.text.replace(/[\r\n]/g, '')}`);
    else if (it.kind === 'other') lines.push('event: ping', `data: ${it.data.replace(/[\r\n]/g, '')}`);
    else if (it.kind === 'retry') lines.push(`retry: ${it.v}`);
    else lines.push(`id: ${it.v.replace(/[\r\n]/g, '')}`);
    lines.push('');
  }
  let i = 0;
  // A CR line end followed by an empty line's LF would merge into one CRLF: use CRLF there.
  const text = lines
    .map((l) => {
      const e = eols[i++ % eols.length]!;
      return l + e;
    })
    .join('');
  const bytes = Buffer.from((bom ? '\uFEFF' : '') + text);
  return bytes.subarray(0, Math.max(0, bytes.length - cut));
}

export const streamArb = fc.record({
  items: fc.array(itemArb, { maxLength: 12 }),
  bom: fc.boolean(),
  eols: fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 1, maxLength: 4 }),
  cut: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(40) }),
});

/**
 * Streams in the service's key order (`{"audio_base64":"…` first, compact JSON) with audio often
 * long: the events the scanner stages (Base64Stage) when they arrive in small reads.
 */
export const audioFirstStreamArb = fc.record({
  items: fc.array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .tuple(msgArb, fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.uint8Array({ minLength: 40, maxLength: 1500 })))
          .map(([m, audio]): Item => ({ ...m, audio, order: [0, 0, 0, 0, 1], pretty: false })),
      },
      { weight: 1, arbitrary: itemArb },
    ),
    { maxLength: 8 },
  ),
  bom: fc.boolean(),
  eols: fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 1, maxLength: 4 }),
  cut: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(40) }),
});
