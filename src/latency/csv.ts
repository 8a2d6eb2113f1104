/**
 * One CSV row per request (RFC 4180 quoting), for spreadsheets and a user's own CI. Times in ms;
 * an empty cell is a figure the request never reached.
 */
import type { LatencyRecord } from './types.js';

const FIXED_COLUMNS = [
  'seq',
  'contender',
  'round',
  'text',
  'ok',
  'failure',
  'failure_code',
  'status',
  'request_id',
  'model',
  'connect_ms',
  'tls',
  'head_ms',
  'first_byte_ms',
  'first_audio_byte_ms',
  'first_frame_ms',
  'first_word_ms',
  'last_byte_ms',
  'audio_sec',
  'real_time_factor',
  'max_audio_gap_ms',
  'audio_events',
  'words',
] as const;
const MS_DIGITS = 3;

function cell(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(Number(v.toFixed(MS_DIGITS))) : '';
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function latencyCsv(records: readonly LatencyRecord[], jitterBuffersMs: readonly number[]): string {
  const header = [
    ...FIXED_COLUMNS,
    ...jitterBuffersMs.flatMap((b) => [`underruns_${b}ms`, `underrun_ms_${b}ms`, `max_word_late_ms_${b}ms`]),
  ];
  const lines = [header.join(',')];
  for (const r of records) {
    const row: Array<string | number | boolean | null> = [
      r.seq,
      r.contender,
      r.round,
      r.textIndex,
      r.ok,
      r.failure?.kind ?? null,
      r.failure?.code ?? null,
      r.status,
      r.requestId,
      r.model,
      r.connectMs,
      r.tls,
      r.headMs,
      r.firstByteMs,
      r.firstAudioByteMs,
      r.firstFrameMs,
      r.firstWordMs,
      r.lastByteMs,
      r.audioDurationSec,
      r.realTimeFactor,
      r.maxAudioGapMs,
      r.audioEvents.length,
      r.words.length,
    ];
    for (let i = 0; i < jitterBuffersMs.length; i++) {
      const p = r.players[i];
      const has = p !== undefined && p.startMs !== null;
      row.push(has ? p.underrunCount : null, has ? p.underrunMs : null, has ? p.maxWordLateMs : null);
    }
    lines.push(row.map(cell).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
