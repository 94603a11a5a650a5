/**
 * Text from outside — a model, a tool, an MCP server, another client, an agent id, a server's error —
 * made safe to write to a terminal. A terminal obeys control characters in what it is sent: OSC 52
 * writes the user's clipboard, CSI sequences clear the screen and move the cursor (over an approval
 * request, say), a carriage return overwrites a line. Every CLI and chat output that may carry such
 * text goes through `terminalText` (or `terminalJson`) on its way out.
 *
 * Control characters are shown, not obeyed: ESC becomes the four characters `\x1b`, so an escape
 * sequence prints as inert text (`\x1b]52;c;…`) and the person sees that something tried. Line ends
 * and tabs are kept (a CRLF becomes a line end), and so is every printable character of any script.
 * Escaped too: C1 controls (U+0080–U+009F: U+009B is a CSI on terminals that read them) and the
 * bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder what a line
 * appears to say.
 */

/** C0 controls but tab and line feed, DEL, C1 controls, bidi overrides and isolates. */
const UNSAFE = /\r\n|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

const escaped = (ch: string): string => {
  if (ch === '\r\n') return '\n';
  if (ch === '\r') return '\\r';
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** `text` with every control character made visible and inert (idempotent). */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/**
 * `value` as indented JSON that is safe on a terminal and parses to the same value: JSON.stringify
 * escapes C0 controls already; C1 controls and bidi controls become `\uXXXX` escapes.
 */
export function terminalJson(value: unknown): string {
  return terminalSafe(JSON.stringify(value, null, 2) ?? 'null');
}

/** JSON text with the characters JSON.stringify leaves raw but a terminal acts on escaped (still the same JSON). */
export function terminalSafe(json: string): string {
  return json.replace(/[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
