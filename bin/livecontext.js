#!/usr/bin/env node
// In a checkout, runs the TypeScript sources through tsx (never a stale build); an installed package
// ships only the compiled dist/.
const fs = require('node:fs');
const path = require('node:path');

const source = path.join(__dirname, '..', 'client', 'cli.ts');
let cli;
if (fs.existsSync(source)) {
  require('tsx/cjs');
  cli = require(source);
} else {
  cli = require(path.join(__dirname, '..', 'dist', 'client', 'cli.js'));
}
// `run` exits once all output has reached its reader (a pipe is written asynchronously).
cli.run(process.argv.slice(2));
