/**
 * What the production-like cluster needs on this machine, found or built: the Temporal CLI (namespace and
 * search attributes), the Temporal server and its SQL tool (scripts/temporal-server.cjs) and PostgreSQL's
 * programs (Debian's `postgresql` package). `missing` says in one sentence what is not there.
 */
const { ensureTemporalCli } = require('../temporal-cli.cjs');
const { ensureTemporalServer } = require('../temporal-server.cjs');
const { findPostgresBin } = require('./postgres.cjs');

/** @returns {{ cli: string, server: string, sqlTool: string, pgBin: string, built?: number } | { missing: string }} */
function clusterPrerequisites({ build = true, log } = {}) {
  const pgBin = findPostgresBin();
  if (!pgBin) return { missing: "no PostgreSQL server programs (install Debian's: apt-get install -y postgresql; or set PG_BIN)" };
  const server = ensureTemporalServer({ build, ...(log ? { log } : {}) });
  if ('missing' in server) return server;
  const cli = ensureTemporalCli(log ? { log } : {});
  if (!cli) return { missing: 'no Temporal CLI (it registers the namespace and the search attributes)' };
  return { ...server, cli, pgBin };
}

module.exports = { clusterPrerequisites };
