/**
 * The exit codes of every command (`say`, `decode`, `serve`), and the one mapping from an error to
 * its code, so that a script can tell "fix the call" (2) from "try again" (1) from "fix this
 * machine" (3) whichever command it ran. The README's "Command line" table says the same.
 */
import { AbortError, ApiError, InvalidOptionError, RequestValidationError, SinkError, VoicewireError, type ErrorCode } from '../errors.js';

/** Done. */
export const EXIT_OK = 0;
/** The service or the stream failed (5xx, unreachable, cut mid-stream); for `decode`, bad input. */
export const EXIT_FAILED = 1;
/** Usage, an invalid option, or a request the service refused as invalid or unauthorised (4xx). */
export const EXIT_USAGE = 2;
/** Local I/O: a file that cannot be read or written, no sound device, a player that fails. */
export const EXIT_IO = 3;
/** Interrupted by SIGINT (128 + 2, the shell convention). */
export const EXIT_INTERRUPTED = 130;

/** The table as each command's --help shows it. */
export const EXIT_CODES_HELP = `exit codes (every command):
  0    done
  1    the service or the stream failed (5xx, unreachable, cut mid-stream); decode: bad input
  2    usage, an invalid option, or a request the service refused as invalid or unauthorised (4xx)
  3    local I/O (a file that cannot be read or written), no sound device, a player that failed
  130  interrupted (SIGINT)
`;

export type ExitCode = typeof EXIT_OK | typeof EXIT_FAILED | typeof EXIT_USAGE | typeof EXIT_IO | typeof EXIT_INTERRUPTED;

/** Wrong flags or arguments on the command line; each command prints its usage with it. */
export class UsageError extends Error {}

/** Codes of faults on this machine rather than in the service or the stream. */
const LOCAL_IO_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['SINK_IO', 'INPUT_IO', 'NO_AUDIO_DEVICE', 'PLAYER_FAILED']);
const HTTP_CLIENT_ERROR_MIN = 400;
const HTTP_SERVER_ERROR_MIN = 500;
/**
 * 4xx answers that say "not now" rather than "not this request": a request timeout and a rate
 * limit are worth retrying as they are, so they count as a service failure (1), not usage (2).
 */
const HTTP_TRY_AGAIN: ReadonlySet<number> = new Set([408, 429]);

/** The exit code for an error that ended a command. */
export function exitCodeFor(err: unknown): ExitCode {
  if (err instanceof UsageError) return EXIT_USAGE;
  if (err instanceof AbortError) return EXIT_INTERRUPTED;
  if (err instanceof VoicewireError) {
    if (err instanceof SinkError || LOCAL_IO_CODES.has(err.code)) return EXIT_IO;
    if (err instanceof RequestValidationError || err instanceof InvalidOptionError) return EXIT_USAGE;
    if (err instanceof ApiError && isRefusal(err.status)) return EXIT_USAGE;
    return EXIT_FAILED;
  }
  if (isSystemError(err)) return EXIT_IO;
  return EXIT_FAILED;
}

/** The service refused this request as it stands (invalid, unauthorised, not found, too large). */
function isRefusal(status: number | undefined): boolean {
  return status !== undefined && status >= HTTP_CLIENT_ERROR_MIN && status < HTTP_SERVER_ERROR_MIN && !HTTP_TRY_AGAIN.has(status);
}

/** A failed call into this machine's OS (file, socket): Node sets `syscall` on those. */
function isSystemError(err: unknown): boolean {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).syscall === 'string';
}
