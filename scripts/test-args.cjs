/**
 * Whether `npm test -- …` names test files or folders (or path patterns), for scripts/test.mjs: then it
 * runs just those, without the whole-project type-check and lint. The values of jest's options that take
 * one (`-t NAME`, `--selectProjects unit`) are not paths. Plain Node, no dependencies.
 */
const VALUE_OPTIONS = new Set([
  '-t',
  '--testNamePattern',
  '-c',
  '--config',
  '--selectProjects',
  '--ignoreProjects',
  '-w',
  '--maxWorkers',
  '--shard',
  '--reporters',
  '--outputFile',
  '--testTimeout',
  '--seed',
  '--rootDir',
  '--roots',
  '--testPathIgnorePatterns',
  '--testMatch',
  '--testRegex',
  '--coverageDirectory',
]);
/** Options whose values run on until the next option (jest reads them as arrays). */
const LIST_OPTIONS = new Set(['--selectProjects', '--ignoreProjects', '--reporters', '--roots', '--testPathIgnorePatterns', '--testMatch']);

/** The arguments that name test files, folders or path patterns. */
function namedTests(args) {
  const named = [];
  let taking = null;
  for (const arg of args) {
    if (arg === '--') {
      taking = null; // ends a list of values
      continue;
    }
    if (arg.startsWith('-')) {
      taking = !arg.includes('=') && VALUE_OPTIONS.has(arg) ? arg : null;
      continue;
    }
    if (taking) {
      if (!LIST_OPTIONS.has(taking)) taking = null;
      continue;
    }
    named.push(arg);
  }
  return named;
}

module.exports = { namedTests };
