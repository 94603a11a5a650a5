// Package entry. In a checkout: the TypeScript sources through tsx (never a stale build); an installed
// package ships only the compiled dist/.
const fs = require('node:fs');
const path = require('node:path');

const source = path.join(__dirname, '..', 'index.ts');
if (fs.existsSync(source)) {
  require('tsx/cjs');
  module.exports = require(source);
} else {
  module.exports = require(path.join(__dirname, '..', 'dist', 'index.js'));
}
