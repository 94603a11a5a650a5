/**
 * The environment of `run_command`: never the worker's own (it holds API keys and codec keys). A command
 * sees an allow-list of harmless variables, HOME set to the agent's workspace, and what the worker's
 * owner passes on purpose: names listed in LIVECONTEXT_RUN_COMMAND_ENV (comma- or space-separated) or in
 * the tool's `passEnv` option, and explicit values in its `env` option.
 */

const LOCALE_CATEGORIES = [
  'ALL',
  'CTYPE',
  'COLLATE',
  'MESSAGES',
  'MONETARY',
  'NUMERIC',
  'TIME',
  'ADDRESS',
  'IDENTIFICATION',
  'MEASUREMENT',
  'NAME',
  'PAPER',
  'TELEPHONE',
];
/** Copied from the worker's environment when set. */
export const ALLOWED_ENV_NAMES = ['PATH', 'LANG', 'LANGUAGE', ...LOCALE_CATEGORIES.map((c) => `LC_${c}`), 'TERM', 'TZ', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR'];
export const PASS_ENV_VARIABLE = 'LIVECONTEXT_RUN_COMMAND_ENV';
const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface CommandEnvironmentOptions {
  /** Names of worker environment variables to pass through as they are. */
  passEnv?: readonly string[];
  /** Variables to set, whatever the worker's environment holds. */
  env?: Readonly<Record<string, string>>;
}

export function commandEnvironment(
  workspace: string,
  options: CommandEnvironmentOptions = {},
  source: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const passed = [...(source[PASS_ENV_VARIABLE] ?? '').split(/[\s,]+/), ...(options.passEnv ?? [])].filter(Boolean);
  // Later sources win: what the owner passes on purpose may even replace HOME.
  return { PATH: FALLBACK_PATH, ...pick(source, ALLOWED_ENV_NAMES), HOME: workspace, PWD: workspace, ...pick(source, passed), ...options.env };
}

function pick(source: Readonly<Record<string, string | undefined>>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((n) => (source[n] === undefined ? [] : [[n, source[n]!]])));
}
