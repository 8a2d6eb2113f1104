/**
 * Instants as fixed-width strings that compare correctly as strings (in JS and in Redis Lua),
 * at nanosecond precision: `SSSSSSSSSSSSS.NNNNNNNNN` (13 digits of unix seconds, 9 of fraction).
 *
 * `analysis.finished_at` values are compared as instants, not as the strings received: `…Z` and
 * `…+00:00`, or `.5` and `.500`, name the same instant, and `Date.parse` would drop sub-millisecond
 * digits.
 */

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;
const SECONDS_WIDTH = 13;
const FRACTION_WIDTH = 9;
const SECONDS_PER_MINUTE = 60;
const MINUTES_PER_HOUR = 60;
const MS_PER_SECOND = 1000;
const MAX_HOUR = 23;
const MAX_MINUTE = 59;
/** 60 allows a leap second as written; it is read as the next second. */
const MAX_SECOND = 60;

function format(seconds: number, fraction: string): string | undefined {
  if (!Number.isSafeInteger(seconds) || seconds < 0) return undefined;
  const s = String(seconds);
  if (s.length > SECONDS_WIDTH) return undefined;
  return `${s.padStart(SECONDS_WIDTH, '0')}.${fraction.slice(0, FRACTION_WIDTH).padEnd(FRACTION_WIDTH, '0')}`;
}

/**
 * Returns the comparable form of an ISO 8601 date-time with an offset (or unix seconds as a
 * number), or undefined when it is not one. Instants before 1970 are not supported.
 */
export function comparableInstant(value: unknown): string | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return undefined;
    const whole = Math.floor(value);
    const frac = (value - whole).toFixed(FRACTION_WIDTH).slice(2);
    return format(whole, frac);
  }
  if (typeof value !== 'string') return undefined;
  const m = ISO_INSTANT.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', , sign, oh, om] = m;
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (hour > MAX_HOUR || minute > MAX_MINUTE || second > MAX_SECOND) return undefined;
  const month = Number(mo) - 1;
  const day = Number(d);
  const dayStart = Date.UTC(Number(y), month, day);
  const check = new Date(dayStart);
  if (check.getUTCMonth() !== month || check.getUTCDate() !== day) return undefined; // 2026-02-30
  let seconds = dayStart / MS_PER_SECOND + (hour * MINUTES_PER_HOUR + minute) * SECONDS_PER_MINUTE + second;
  if (sign !== undefined) {
    const offset = (Number(oh) * MINUTES_PER_HOUR + Number(om)) * SECONDS_PER_MINUTE;
    seconds += sign === '+' ? -offset : offset;
  }
  return format(seconds, frac);
}
