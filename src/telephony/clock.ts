/**
 * The clock a bridge paces against: the shared injectable {@link Clock}.
 */
import type { Clock } from '../internal/clock.js';

export { systemClock } from '../internal/clock.js';
export type TelephonyClock = Clock;
