/** Text from outside is shown on a terminal, never obeyed (cli/terminal-text.ts). */
import fc from 'fast-check';
import { terminalJson, terminalText } from '../../cli/terminal-text';

/** What a terminal would act on: C0 controls but tab and line feed, DEL, C1 controls, bidi overrides and isolates. */
const OBEYED = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

test('escape sequences print as inert, visible text', () => {
  expect(terminalText('copy \x1b]52;c;aGVsbG8=\x07 done')).toBe('copy \\x1b]52;c;aGVsbG8=\\x07 done');
  expect(terminalText('\x1b[2J\x1b[H\x1b[3Aapproved')).toBe('\\x1b[2J\\x1b[H\\x1b[3Aapproved');
  expect(terminalText('\u009b2J C1 CSI')).toBe('\\x9b2J C1 CSI');
  expect(terminalText('rm -rf ~\rls     ')).toBe('rm -rf ~\\rls     ');
  expect(terminalText('abc\u202edcba')).toBe('abc\\u202edcba');
  expect(terminalText('bell\x07 nul\x00 del\x7f')).toBe('bell\\x07 nul\\x00 del\\x7f');
});

test('line ends, tabs and printable text of any script stay as they are', () => {
  const plain = 'line one\n\tindented — naïve café, 日本語, emoji 🙂, العربية, עברית\nlast';
  expect(terminalText(plain)).toBe(plain);
  expect(terminalText('windows\r\nline ends')).toBe('windows\nline ends');
});

test('any string comes out with nothing a terminal obeys, and a second pass changes nothing', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (s) => {
      const once = terminalText(s);
      expect(once).not.toMatch(OBEYED);
      expect(terminalText(once)).toBe(once);
    }),
  );
});

test('JSON output parses to the same value and carries no control a terminal obeys', () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, s) => {
      const data = { value, s, id: `agent\x1b]52;c;x\x07\u009b\u202e` };
      const json = terminalJson(data);
      expect(json).not.toMatch(OBEYED);
      expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(data)));
    }),
  );
});
