/** The commands `send --wait` prints for a turn that needs a person run in a shell as printed (cli/person-wait.ts). */
import { execFileSync } from 'node:child_process';
import { approvalNotice, command } from '../../cli/person-wait';
import { commandArgs } from '../../cli/cli';

/** How a POSIX shell splits `line` into words (the command's own words, without `livecontext`). */
const shellWords = (line: string): string[] =>
  JSON.parse(
    execFileSync('sh', ['-c', `node -e 'console.log(JSON.stringify(process.argv.slice(1)))' -- ${line.replace(/^livecontext /, '')}`], { encoding: 'utf8' }),
  );

test('ids are quoted when a shell would split or expand them, and put after -- when they start with -', () => {
  expect(command('approve', ['my-agent', 'call_1'])).toBe('livecontext approve my-agent call_1');
  for (const id of ['two words', "it's", '$HOME', '-starts-with-dash', 'a;rm -rf ~', 'back`tick`']) {
    const approve = command('approve', [id, 'call_1']);
    expect(commandArgs('approve', shellWords(approve).slice(1))).toEqual({ help: false, positionals: [id, 'call_1'], values: {} });
    const deny = command('deny', [id, 'call_1'], '--reason "not now"');
    expect(commandArgs('deny', shellWords(deny).slice(1))).toEqual({ help: false, positionals: [id, 'call_1'], values: { reason: 'not now' } });
  }
});

test('a sub-agent waiting for approval is named, with its own commands', () => {
  const lines = approvalNotice('parent', 4, [{ agentId: 'parent/child-1', toolCallId: 'c9', toolName: 'delete_file', arguments: '{"path":"x"}', reason: '' }]);
  expect(lines).toEqual([
    'Sub-agent "parent/child-1" (working for "parent") waits for a person: tool call delete_file {"path":"x"} needs approval.',
    '  approve: livecontext approve parent/child-1 c9',
    '  deny:    livecontext deny --reason "…" parent/child-1 c9',
    'The answer to input #4 comes after that: `livecontext history parent` shows it, `livecontext chat parent` follows the turn.',
  ]);
});
