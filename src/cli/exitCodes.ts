/** Exit codes shared by every command. */
export const EXIT_OK = 0;
/** Bad input: the stream or request was invalid, or the service answered an error. */
export const EXIT_BAD_INPUT = 1;
export const EXIT_USAGE = 2;
export const EXIT_IO = 3;
