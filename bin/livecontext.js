#!/usr/bin/env node
// Runs the compiled CLI when built (dist/), else the TypeScript sources through tsx (a dev checkout).
const fs = require('node:fs');
const path = require('node:path');

const dist = path.join(__dirname, '..', 'dist', 'client', 'cli.js');
let cli;
if (fs.existsSync(dist)) {
  cli = require(dist);
} else {
  require('tsx/cjs');
  cli = require('../client/cli.ts');
}
cli.main(process.argv.slice(2)).then((code) => process.exit(code));
