/**
 * Money on the platform is counted in integer micro-dollars (1 USD = 1 000 000 µ$) and only
 * turned into a decimal string at the edge, so no cost ever passes through a float.
 *
 * @see docs/service-interface.md#sessions (usage objects): `cost_usd` and friends are decimal strings.
 */

/** Micro-dollars in one dollar. */
export const MICROS_PER_DOLLAR = 1_000_000n;
/** Tokens (or characters) a `rate_per_million` is quoted for. */
export const UNITS_PER_RATE = 1_000_000n;
/** Digits after the decimal point a micro-dollar amount can carry. */
const MICRO_DIGITS = 6;

const DECIMAL_RE = /^(\d+)(?:\.(\d+))?$/;

/**
 * Parses a non-negative decimal string (`"0.15"`, `"3"`, `"12.000001"`) into micro-dollars.
 * Digits beyond the sixth decimal are rejected rather than rounded: a rate must be exact.
 */
export function parseMicros(decimal: string): bigint {
  const m = DECIMAL_RE.exec(decimal);
  if (!m) throw new RangeError(`not a non-negative decimal string: ${JSON.stringify(decimal)}`);
  const whole = m[1] ?? '0';
  const frac = m[2] ?? '';
  if (frac.length > MICRO_DIGITS && /[1-9]/.test(frac.slice(MICRO_DIGITS))) {
    throw new RangeError(`more than ${MICRO_DIGITS} decimals: ${JSON.stringify(decimal)}`);
  }
  return BigInt(whole) * MICROS_PER_DOLLAR + BigInt(frac.slice(0, MICRO_DIGITS).padEnd(MICRO_DIGITS, '0'));
}

/** Formats micro-dollars as the shortest exact decimal string: `0`, `0.000015`, `1.5`. */
export function formatMicros(micros: bigint): string {
  const negative = micros < 0n;
  const abs = negative ? -micros : micros;
  const whole = abs / MICROS_PER_DOLLAR;
  const frac = (abs % MICROS_PER_DOLLAR).toString().padStart(MICRO_DIGITS, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/**
 * Cost of `units` tokens (or characters) at `ratePerMillion` dollars per million units, in
 * micro-dollars, rounded half up to the micro-dollar: `units × rateµ$ / 10⁶`, all in BigInt.
 */
export function costMicros(units: number, ratePerMillion: string): bigint {
  if (!Number.isSafeInteger(units) || units < 0) throw new RangeError(`units must be a non-negative integer, got ${units}`);
  const scaled = BigInt(units) * parseMicros(ratePerMillion);
  return (scaled + UNITS_PER_RATE / 2n) / UNITS_PER_RATE;
}

/** Sum of micro-dollar amounts. */
export function sumMicros(amounts: Iterable<bigint>): bigint {
  let total = 0n;
  for (const a of amounts) total += a;
  return total;
}
