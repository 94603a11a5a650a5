/**
 * The web page's browser test runs in a real headless Chromium: Debian's `chromium` package, driven by
 * playwright-core through its executablePath (no browser download). `npm test` installs the package when
 * it is missing on Debian as root, and otherwise says clearly that the browser test is skipped and why.
 * Plain Node, no dependencies.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');

/** Where a Chromium is looked for, in order: LIVECONTEXT_CHROMIUM_PATH, then Debian's and Ubuntu's names. */
function chromiumCandidates(env = process.env) {
  return [env.LIVECONTEXT_CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
}

/** The first Chromium executable found, or null. */
function findChromium(env = process.env) {
  return chromiumCandidates(env).find((p) => fs.existsSync(p)) ?? null;
}

/** Whether this machine can install Debian's package itself: Debian (or a derivative) with apt-get, as root. */
function canInstall() {
  return (
    process.platform === 'linux' &&
    fs.existsSync('/etc/debian_version') &&
    process.getuid?.() === 0 &&
    spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0
  );
}

/** Finds Chromium, installing Debian's package when possible; returns its path or null (having said why). */
function ensureChromium({ log = (m) => console.error(m) } = {}) {
  const found = findChromium();
  if (found) return found;
  if (canInstall()) {
    log("npm test: installing Debian's chromium package for the web page browser test (apt-get install -y chromium)…");
    const apt = (args) =>
      spawnSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
    // An image without package lists cannot install anything: update only when the first try fails.
    if (!apt(['install', '-y', 'chromium'])) apt(['update']) && apt(['install', '-y', 'chromium']);
    const installed = findChromium();
    if (installed) return installed;
    log('npm test: installing chromium failed: the web page browser test (test/gateway/web-page.test.ts) will be SKIPPED.');
    return null;
  }
  log(
    'npm test: no Chromium found (looked at LIVECONTEXT_CHROMIUM_PATH, /usr/bin/chromium, /usr/bin/chromium-browser), and this is not ' +
      'Debian as root, where it would be installed: the web page browser test (test/gateway/web-page.test.ts) will be SKIPPED. ' +
      'Install Chromium and set LIVECONTEXT_CHROMIUM_PATH to run it.',
  );
  return null;
}

module.exports = { chromiumCandidates, ensureChromium, findChromium };
if (require.main === module) ensureChromium();
