/**
 * The cluster files in a fixed order: the checks that need a healthy cluster first, then the ones that
 * break parts of it on purpose (PostgreSQL restarted, services SIGKILLed), so a slow recovery of one
 * cannot fail another.
 */
const Sequencer = require('@jest/test-sequencer').default;

const ORDER = ['config', 'smoke', 'rolling-deploy', 'postgres-restart', 'topology-chaos'];
const rank = (file) => {
  const i = ORDER.findIndex((name) => file.endsWith(`/${name}.cluster.ts`));
  return i === -1 ? ORDER.length : i;
};

module.exports = class ClusterSequencer extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => rank(a.path) - rank(b.path) || a.path.localeCompare(b.path));
  }
};
