#!/usr/bin/env node
/**
 * Rewrites every relative import that names a folder (`'../agent'`) to name its index
 * (`'../agent/index'`), in every tracked source, test and script file: what
 * test/unit/source-imports.test.ts asks for. `node scripts/fix-folder-imports.cjs` lists and fixes;
 * `--check` only lists (exit status 1 when there is any).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const check = process.argv.includes('--check');
const IMPORT =
  /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\brequire(?:\.resolve)?\s*\(\s*|\bjest\.(?:mock|doMock|requireActual)\s*\(\s*)(['"`])(\.{1,2}(?:\/[^'"`\n]*)?)\2/g;
const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => /\.(?:[cm]?ts|[cm]?js)$/.test(f));
let found = 0;
for (const file of files) {
  const full = path.join(root, file);
  if (!fs.existsSync(full)) continue;
  const text = fs.readFileSync(full, 'utf8');
  const fixed = text.replace(IMPORT, (whole, before, quote, spec) => {
    const target = path.resolve(path.dirname(full), spec);
    if (!fs.existsSync(target) || !fs.statSync(target).isDirectory()) return whole;
    found++;
    console.log(`${file}: '${spec}'`);
    return `${before}${quote}${spec.replace(/\/$/, '')}/index${quote}`;
  });
  if (!check && fixed !== text) fs.writeFileSync(full, fixed);
}
console.log(`${found} folder import${found === 1 ? '' : 's'}${check ? '' : ' named by their index now'}.`);
if (check && found) process.exitCode = 1;
