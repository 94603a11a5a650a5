/**
 * The chat's terminal: the agent's lines and streamed text around readline's `you> ` prompt. The
 * prompt shows only while the agent waits for the person; output that arrives while it shows takes its
 * place, and the prompt is drawn again below (with whatever was typed so far) once the agent rests.
 */
import readline from 'node:readline';
import type { Writable } from 'node:stream';
import { terminalText } from './terminal-text';

export class ChatScreen {
  private promptShown = false;
  /** Streamed text is on the current line, which has no line end yet. */
  private midLine = false;

  constructor(
    private readonly rl: readline.Interface,
    private readonly out: Writable,
  ) {
    // Enter moved the cursor to a new line: the prompt is history now.
    rl.on('line', () => {
      this.promptShown = false;
      this.midLine = false;
    });
  }

  /** A whole line (or several); control characters in it are shown, not obeyed (as in streamed text). */
  line(text = ''): void {
    this.endStream();
    this.clearPrompt();
    this.out.write(`${terminalText(text)}\n`);
  }

  /** Text that continues the current line. */
  stream(text: string): void {
    if (!text) return;
    this.clearPrompt();
    this.out.write(terminalText(text));
    this.midLine = !text.endsWith('\n');
  }

  /** Ends streamed text with a line end, if it needs one. */
  endStream(): void {
    if (!this.midLine) return;
    this.out.write('\n');
    this.midLine = false;
  }

  showPrompt(): void {
    if (this.promptShown) return;
    this.endStream();
    this.rl.prompt(true);
    this.promptShown = true;
  }

  private clearPrompt(): void {
    if (!this.promptShown) return;
    readline.cursorTo(this.out, 0);
    readline.clearLine(this.out, 0);
    this.promptShown = false;
  }
}
