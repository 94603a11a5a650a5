/** run_command's scrubbed environment, the redaction of known secrets, and the missing-tool rule. */
import type { ToolContext } from '../../activities/index';
import { commandEnvironment } from '../../activities/tools/command-environment';
import { MISSING_TOOL_MAX_ATTEMPTS, MISSING_TOOL_MAX_WAIT_MS, shouldPassOn } from '../../activities/tools/missing-tool';
import { redactJson, redactSecrets, redactSecretsAcross, secretsIn } from '../../activities/tools/redact-secrets';
import { createRunCommandTool } from '../../activities/tools/run-command';

const workerEnv = {
  PATH: '/usr/bin:/bin',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  TZ: 'UTC',
  OPENAI_API_KEY: 'sk-live-0123456789abcdef',
  LIVECONTEXT_CODEC_KEYS: 'k2:bXlzZWNyZXRrZXkyMjIy,k1:b2xkc2VjcmV0a2V5MTEx',
  GITHUB_TOKEN: 'ghp_abcdefghijklmnop',
  DB_PASSWORD: 'short',
  DATABASE_URL: 'postgres://app:hunter2-long-pass@db:5432/app',
  MY_SETTING: 'harmless-visible-value',
};

describe('commandEnvironment', () => {
  test('only the allow-list, with HOME in the workspace', () => {
    expect(commandEnvironment('/ws/a', {}, workerEnv)).toEqual({
      PATH: '/usr/bin:/bin',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TZ: 'UTC',
      HOME: '/ws/a',
      PWD: '/ws/a',
    });
  });

  test('what the owner passes on purpose: names in LIVECONTEXT_RUN_COMMAND_ENV or passEnv, values in env', () => {
    const env = commandEnvironment(
      '/ws/a',
      { passEnv: ['DATABASE_URL'], env: { MODE: 'ci' } },
      { ...workerEnv, LIVECONTEXT_RUN_COMMAND_ENV: 'MY_SETTING, GITHUB_TOKEN' },
    );
    expect(env).toMatchObject({ MY_SETTING: 'harmless-visible-value', GITHUB_TOKEN: 'ghp_abcdefghijklmnop', DATABASE_URL: workerEnv.DATABASE_URL, MODE: 'ci' });
    expect(env.OPENAI_API_KEY).toBeUndefined();
  });

  test('a real command sees none of the worker environment', async () => {
    process.env.LC_TEST_SECRET_TOKEN = 'tok-should-not-leak-123';
    try {
      const ctx = { workspaceRoot: process.cwd(), signal: new AbortController().signal } as ToolContext;
      const out = await createRunCommandTool().execute({ command: 'env', timeout_seconds: 10 }, ctx);
      const text = typeof out === 'string' ? out : out.text;
      expect(text).toContain(`HOME=${process.cwd()}`);
      expect(text).not.toContain('LC_TEST_SECRET_TOKEN');
      expect(text).not.toContain('tok-should-not-leak-123');
    } finally {
      delete process.env.LC_TEST_SECRET_TOKEN;
    }
  });
});

describe('redactSecrets', () => {
  const secrets = secretsIn(workerEnv);

  test('values of secret-looking names, their pieces, and URL passwords; short and ordinary values stay', () => {
    const text = [
      `key=${workerEnv.OPENAI_API_KEY}`,
      `codec=${workerEnv.LIVECONTEXT_CODEC_KEYS}`,
      'one codec key alone: b2xkc2VjcmV0a2V5MTEx',
      `gh ${workerEnv.GITHUB_TOKEN}`,
      'pw short',
      `url ${workerEnv.DATABASE_URL}`,
      workerEnv.MY_SETTING,
    ].join('\n');
    expect(redactSecrets(text, secrets)).toBe(
      [
        'key=[redacted $OPENAI_API_KEY]',
        'codec=[redacted $LIVECONTEXT_CODEC_KEYS]',
        'one codec key alone: [redacted $LIVECONTEXT_CODEC_KEYS]',
        'gh [redacted $GITHUB_TOKEN]',
        'pw short',
        'url postgres://app:[redacted $DATABASE_URL]@db:5432/app',
        'harmless-visible-value',
      ].join('\n'),
    );
  });

  // The shapes secrets have in environments: a service-account key file on one line (quotes, and "\n"
  // inside its PEM key), a multi-line PEM key, a password with a quote and a backslash, a non-ASCII one.
  const shaped = {
    GOOGLE_CREDENTIALS: JSON.stringify({
      type: 'service_account',
      private_key: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n',
    }),
    SSH_PRIVATE_KEY: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----',
    DB_PASSWORD: 'pa"ss\\w0rd-2024',
    VAULT_TOKEN: 'hvs.gëheim-Ω-0123456789',
  };
  const shapedSecrets = secretsIn(shaped);

  test('a secret written inside JSON text (escaped) is found too', () => {
    for (const [name, value] of Object.entries(shaped)) {
      const asJson = JSON.stringify({ value }); // what structuredContent becomes
      const asPython = asJson.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`); // json.dumps
      for (const text of [asJson, asPython, JSON.stringify(asJson)]) {
        const redacted = redactSecrets(text, shapedSecrets);
        expect(redacted).toContain(`[redacted $${name}]`);
        expect(redacted).not.toMatch(/MIIEvQIBADANBgkqhkiG9w0BAQEFAASC|b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ|w0rd-2024|0123456789/);
      }
    }
  });

  test('a secret split between texts read as one is cut out of each', () => {
    const token = workerEnv.GITHUB_TOKEN;
    expect(redactSecretsAcross([`token: ${token.slice(0, 5)}`, `${token.slice(5)} (end)`, 'other'], secrets)).toEqual([
      'token: [redacted $GITHUB_TOKEN]',
      ' (end)',
      'other',
    ]);
    // Over three parts, the middle one wholly inside the secret; and a whole one beside it.
    const key = workerEnv.OPENAI_API_KEY;
    expect(redactSecretsAcross([`a ${key.slice(0, 3)}`, key.slice(3, 10), `${key.slice(10)} b ${key}`], secrets)).toEqual([
      'a [redacted $OPENAI_API_KEY]',
      '',
      ' b [redacted $OPENAI_API_KEY]',
    ]);
    expect(redactSecretsAcross(['nothing', 'here'], secrets)).toEqual(['nothing', 'here']);
    // Many occurrences stay quick (no quadratic scan).
    const many = Array.from({ length: 20_000 }, (_, i) => (i % 2 ? token.slice(4) : token.slice(0, 4)));
    expect(redactSecretsAcross(many, secrets).join('')).toBe('[redacted $GITHUB_TOKEN]'.repeat(10_000));
  });

  test('inside metadata and heartbeat details too', () => {
    expect(redactJson({ a: [workerEnv.GITHUB_TOKEN, 3], b: { c: `x${workerEnv.OPENAI_API_KEY}` } }, secrets)).toEqual({
      a: ['[redacted $GITHUB_TOKEN]', 3],
      b: { c: 'x[redacted $OPENAI_API_KEY]' },
    });
  });
});

test('a missing tool is passed on while attempts and time remain', () => {
  const now = 1_000_000;
  const first = now - 1000;
  expect(shouldPassOn({ attempt: 1, maximumAttempts: 5, firstScheduledMs: first }, now)).toBe(true);
  expect(shouldPassOn({ attempt: 4, maximumAttempts: 5, firstScheduledMs: first }, now)).toBe(true);
  expect(shouldPassOn({ attempt: 5, maximumAttempts: 5, firstScheduledMs: first }, now)).toBe(false);
  expect(shouldPassOn({ attempt: MISSING_TOOL_MAX_ATTEMPTS, maximumAttempts: 0, firstScheduledMs: first }, now)).toBe(false);
  expect(shouldPassOn({ attempt: 2, maximumAttempts: 0, firstScheduledMs: now - MISSING_TOOL_MAX_WAIT_MS }, now)).toBe(false);
});
