#!/usr/bin/env node
// The CLI entry: everything lives in the built library (dist/), built by `npm install`.
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`voicewire: ${err && err.stack ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
