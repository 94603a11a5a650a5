/**
 * How every command reads its words (cli/argv.ts): options anywhere, `--` ends them, a word more than
 * the command takes is refused, and an option among the words of `send`'s text is refused (it used to
 * become text: `send A "what is this" --image ./cat.png` sent the path to the model).
 */
import { commandArgs } from '../../cli/cli';

const parse = (line: string[]) => commandArgs(line[0], line.slice(1));
const ok = (line: string[], positionals: string[], values: Record<string, unknown> = {}) => expect(parse(line)).toEqual({ help: false, positionals, values });
const refused = (line: string[], message: RegExp) => expect(() => parse(line)).toThrow(message);

test('send: options before, after and around the text; the text is the words between', () => {
  ok(['send', 'A', 'what is in this picture', '--image', './cat.png', '--wait'], ['A', 'what is in this picture'], { image: ['./cat.png'], wait: true });
  ok(['send', 'A', 'what', 'is', 'this', '--image', 'a.png', '--image', 'b.png'], ['A', 'what', 'is', 'this'], { image: ['a.png', 'b.png'] });
  ok(['send', '--wait', 'A', '--image', 'a.png', 'hello', 'there', '--json'], ['A', 'hello', 'there'], { wait: true, image: ['a.png'], json: true });
  ok(['send', 'A', '--idempotency-key', 'k1', 'hi', '--schema', 's.json', '--timeout', '30'], ['A', 'hi'], {
    'idempotency-key': 'k1',
    schema: 's.json',
    timeout: '30',
  });
  ok(['send', 'A', '-', '--wait'], ['A', '-'], { wait: true });
});

test('send: an option among the words of the text is refused with a hint, whatever option it is', () => {
  const hint = /is among the words of the text: put options before or after the text, and put -- before text that has words starting with -/;
  refused(['send', 'A', 'what', 'is', 'in', '--image', './cat.png', 'this', 'picture'], /"--image" is among the words of the text/);
  refused(['send', 'A', 'explain', 'what', '--wait', 'does'], hint);
  refused(['send', 'A', 'what', 'does', '-h', 'mean'], /"-h" is among/);
  refused(['send', 'A', 'the', 'range', 'is', '-5', 'to', '5'], /"-5" is among/);
  refused(['send', 'A', 'hi', '--bogus'], /^Unknown option '--bogus' \(put -- before text that has words starting with -\)$/);
  refused(['send', 'A', '--wait=yes', 'hi'], /--wait/);
});

test('`--` ends the options of every command', () => {
  ok(['send', 'A', '--wait', '--', 'what', 'does', '-h', 'mean', '--image', 'x'], ['A', 'what', 'does', '-h', 'mean', '--image', 'x'], { wait: true });
  ok(['send', 'A', '--', '--json', 'is', 'a', 'flag'], ['A', '--json', 'is', 'a', 'flag']);
  ok(['state', '--json', '--', '--odd-id'], ['--odd-id'], { json: true });
  ok(['approve', '--', '-A', '-call'], ['-A', '-call']);
});

test('every command: options anywhere, a word more than it takes refused, unknown options refused', () => {
  const lines: Array<[string[], string[], Record<string, unknown>]> = [
    [['up', 'my-agent', '--model', 'openai:gpt-4.1-mini'], ['my-agent'], { model: 'openai:gpt-4.1-mini' }],
    [['up', '--mcp', 'mcp.json', 'my-agent'], ['my-agent'], { mcp: 'mcp.json' }],
    [['dev', '--namespace', 'other'], [], { namespace: 'other' }],
    [['worker', '--tools', './t.js', '--mcp', 'm.json', '--workspace', 'w'], [], { tools: './t.js', mcp: 'm.json', workspace: 'w' }],
    [['mcp', '--json', 'list'], ['list'], { json: true }],
    [
      ['start', '--model', 'demo:offline', 'A', '--budget', 'turnModelCalls=5', '--budget', 'dayCostUsd=1'],
      ['A'],
      { model: 'demo:offline', budget: ['turnModelCalls=5', 'dayCostUsd=1'] },
    ],
    [
      ['start', 'A', '--system', 'Be terse.', '--tools', 'a,b', '--fallback-models', 'x:y'],
      ['A'],
      { system: 'Be terse.', tools: 'a,b', 'fallback-models': 'x:y' },
    ],
    [['chat', 'A'], ['A'], {}],
    [['state', '--json', 'A'], ['A'], { json: true }],
    [['history', 'A', '--json'], ['A'], { json: true }],
    [['list', '--all', '--json'], [], { all: true, json: true }],
    [['configure', 'A', '--model', 'x:y', '--system', '', '--json'], ['A'], { model: 'x:y', system: '', json: true }],
    [['notebook', '--append', 'more', 'A'], ['A'], { append: 'more' }],
    [['approve', 'A', 'call_1'], ['A', 'call_1'], {}],
    [['deny', '--reason', 'not now', 'A', 'call_1'], ['A', 'call_1'], { reason: 'not now' }],
    [['deny', 'A', 'call_1', '--reason', 'not now'], ['A', 'call_1'], { reason: 'not now' }],
    [['export', 'A', '--out', '/tmp/a.json'], ['A'], { out: '/tmp/a.json' }],
    [['import', '--id', 'B', 'a.json'], ['a.json'], { id: 'B' }],
    [['serve', '--port', '0', '--cors-origin', 'https://a', '--cors-origin', 'https://b'], [], { port: '0', 'cors-origin': ['https://a', 'https://b'] }],
    [['schedule', 'add', 'A', '--every', '1h', '--text', 'Check the inbox'], ['add', 'A'], { every: '1h', text: 'Check the inbox' }],
    [['schedule', '--json', 'list'], ['list'], { json: true }],
    [['codec-server', '--port', '8888', '--ui-origin', 'http://localhost:8233'], [], { port: '8888', 'ui-origin': 'http://localhost:8233' }],
    [['retry', 'A'], ['A'], {}],
    [['interrupt', 'A'], ['A'], {}],
    [['stop', 'A'], ['A'], {}],
  ];
  for (const [line, positionals, values] of lines) ok(line, positionals, values);

  refused(['deny', 'A', 'call_1', '--reason', 'not', 'now'], /^Unexpected word "now" \(quote a value that has spaces\)$/);
  refused(['schedule', 'add', 'A', '--every', '1h', '--text', 'Check', 'the', 'inbox'], /Unexpected word "the"/);
  refused(['list', 'everything'], /Unexpected word "everything"/);
  refused(['chat', 'A', 'B'], /Unexpected word "B"/);
  refused(['state', 'A', '--nope'], /Unknown option '--nope'/);
  refused(['start', 'A', '--model'], /argument missing/);
});

test('help wins anywhere options are read, for every command', () => {
  for (const name of ['up', 'dev', 'worker', 'mcp', 'start', 'send', 'chat', 'state', 'list', 'deny', 'schedule', 'stop']) {
    expect(parse([name, '--help']).help).toBe(true);
    expect(parse([name, 'A', '--nope', '-h']).help).toBe(true);
  }
  expect(parse(['send', 'A', 'hello', '--help']).help).toBe(true);
  expect(parse(['send', 'A', '--', '-h']).help).toBe(false);
});

test('resolve: one of --done TEXT, --failed TEXT or --retry', async () => {
  ok(['resolve', 'A', 'call_1', '--done', 'charged once'], ['A', 'call_1'], { done: 'charged once' });
  ok(['resolve', 'A', 'call_1', '--retry'], ['A', 'call_1'], { retry: true });
  const { resolveCmd } = await import('../../cli/commands');
  const onlyOne = /Give exactly one of --done TEXT \(it happened\), --failed TEXT \(it did not\) or --retry/;
  await expect(resolveCmd('A', 'call_1', {})).rejects.toThrow(onlyOne);
  await expect(resolveCmd('A', 'call_1', { done: 'x', retry: true })).rejects.toThrow(onlyOne);
});
