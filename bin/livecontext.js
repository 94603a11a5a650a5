#!/usr/bin/env node
// Runs the compiled CLI in dist/. In a checkout, dist/ is compiled first when it is missing or older than
// the sources (so it is never stale); an installed package ships dist/ and has no sources.
const path = require('node:path');

const root = path.join(__dirname, '..');
require(path.join(root, 'scripts', 'ensure-build.cjs')).ensureBuild(root);
// `run` exits once all output has reached its reader (a pipe is written asynchronously).
require(path.join(root, 'dist', 'cli', 'cli.js')).run(process.argv.slice(2));
