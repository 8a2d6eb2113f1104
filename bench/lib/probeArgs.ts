/** A probe's command-line value: the word after `--name`, or undefined when the flag is absent. */
export function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
