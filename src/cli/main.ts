/**
 * The CLI dispatcher: each command lives in its own module, loaded on demand so that `decode`
 * never pays for the local service's speech engine.
 */
import { EXIT_OK, EXIT_USAGE } from './exitCodes.js';

type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  say: { summary: 'speak text with live word captions', load: async () => (await import('./say.js')).run },
  decode: { summary: 'decode a captured SSE stream to a WAV and a word timeline', load: async () => (await import('./decode.js')).run },
  serve: { summary: 'run the local voice service', load: async () => (await import('./serve.js')).run },
  view: {
    summary: 'a captured stream as a page: waveform, words, a player that follows them',
    load: async () => (await import('./view.js')).run,
  },
  latency: {
    summary: "benchmark a speech endpoint's latency (side by side, with a report)",
    load: async () => (await import('./latency.js')).run,
  },
};

export const USAGE = `usage: voicewire <command> [options]

commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`)
  .join('\n')}

Run 'voicewire <command> --help' for a command's options, 'voicewire --version' for the version.
`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(USAGE); // a usage error: nothing on stdout for a script to take as output
    return EXIT_USAGE;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return EXIT_OK;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`${(await import('./version.js')).packageVersion()}\n`);
    return EXIT_OK;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`voicewire: unknown command '${name}'\n${USAGE}`);
    return EXIT_USAGE;
  }
  return (await command.load())(rest);
}
