/** The agent workflow of an older commit of this repository, bundled as a worker would run it (tests of upgrades). */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';

const repo = path.resolve(__dirname, '../..');

/** Whether `commit` is in this checkout's git history (not in a shallow clone or a package); says so when not. */
export function hasCommit(commit: string, test: string): boolean {
  try {
    execFileSync('git', ['-C', repo, 'cat-file', '-e', `${commit}^{commit}`], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn(`${test}: skipped, commit ${commit} is not in this checkout's git history (a shallow clone or a package).`);
    return false;
  }
}

/** The workflow bundle of `commit`'s code. */
export async function bundleOfCommit(commit: string): Promise<{ code: string }> {
  const old = mkdtempSync(path.join(tmpdir(), `lc-${commit}-`));
  execFileSync('bash', ['-c', `git -C "${repo}" archive ${commit} agent workflows common activities | tar -x -C "${old}"`]);
  symlinkSync(path.join(repo, 'node_modules'), path.join(old, 'node_modules'));
  const bundle = await bundleWorkflowCode({
    workflowsPath: path.join(old, 'workflows/index.ts'),
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never,
  });
  return { code: bundle.code };
}
