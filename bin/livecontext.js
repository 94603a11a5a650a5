#!/usr/bin/env node
// Runs the compiled CLI in dist/. In a checkout, dist/ is compiled first when it is missing or older than
// the sources (so it is never stale); an installed package ships dist/ and has no sources.
const path = require('node:path');
// Node 22.1+ keeps the compiled code of every module in a cache on disk: later starts skip compiling
// Temporal's client and its protobuf bundle (Node 20 has no such cache; there this does nothing).
require('node:module').enableCompileCache?.();

const root = path.join(__dirname, '..');
require(path.join(root, 'scripts', 'ensure-build.cjs')).ensureBuild(root);
// `run` exits once all output has reached its reader (a pipe is written asynchronously).
require(path.join(root, 'dist', 'cli', 'cli.js')).run(process.argv.slice(2));
