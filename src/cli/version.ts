/**
 * `voicewire --version`: the version of the installed package, read from its package.json, which
 * sits two levels above this module both in the sources (src/cli/) and in the build (dist/cli/).
 */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
