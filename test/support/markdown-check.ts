/**
 * What test/unit/docs.test.ts checks in the README and docs/: relative links and their heading anchors
 * (GitHub's slugs), and the commands shown (`livecontext <command> --options`, `npm run <script>`).
 * Pure functions over markdown text, so the checks themselves can be tested on a broken sample.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface Block {
  lang: string;
  lines: string[];
}

/** The text outside fenced code blocks, and the fenced blocks with their language. */
export function splitFences(markdown: string): { prose: string; blocks: Block[] } {
  const prose: string[] = [];
  const blocks: Block[] = [];
  let open: Block | undefined;
  for (const line of markdown.split('\n')) {
    const fence = /^\s*```(\S*)/.exec(line);
    if (fence) {
      if (open) {
        blocks.push(open);
        open = undefined;
      } else open = { lang: fence[1], lines: [] };
      prose.push('');
      continue;
    }
    if (open) open.lines.push(line);
    else prose.push(line);
  }
  return { prose: prose.join('\n'), blocks };
}

/** GitHub's anchor for a heading: rendered text, lower case, punctuation dropped, spaces as `-`; repeats get -1, -2… */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of splitFences(markdown).prose.split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[`*]/g, '')
      .toLowerCase();
    const base = text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

/** Inline code spans of prose (links inside them are not links). */
const codeSpans = (prose: string) => [...prose.matchAll(/(`+)([^`]+?)\1/g)].map((m) => m[2]);

/** Every relative link of a markdown file that does not resolve: a missing file, or a missing heading anchor. */
export function brokenLinks(file: string, read: (file: string) => string = (f) => readFileSync(f, 'utf8')): string[] {
  const prose = splitFences(read(file)).prose.replace(/(`+)[^`]+?\1/g, '');
  const broken: string[] = [];
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z+.-]*:/i.test(target)) continue; // http(s), mailto: not relative
    const [relative, anchor] = target.split('#');
    const resolved = relative ? path.resolve(path.dirname(file), decodeURIComponent(relative)) : file;
    if (!existsSync(resolved)) {
      broken.push(`${target}: no file ${path.relative(process.cwd(), resolved)}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) broken.push(`${target}: an anchor into something that is not a markdown file`);
    else if (!headingAnchors(read(resolved)).has(anchor)) broken.push(`${target}: no heading #${anchor} in ${path.basename(resolved)}`);
  }
  return broken;
}

/** A command as shown: `livecontext <command>` with the options written after it, or an npm script. */
export type ShownCommand = { kind: 'cli'; command: string; options: string[]; text: string } | { kind: 'npm'; script: string; text: string };

/** Shell code blocks (sh, bash, shell, console or none) and inline code spans: code in other languages is not run as shown. */
const SHELL = new Set(['', 'sh', 'bash', 'shell', 'console']);

/** The commands a markdown file shows, in shell code blocks and in inline code. */
export function shownCommands(markdown: string): ShownCommand[] {
  const { prose, blocks } = splitFences(markdown);
  const snippets = [...blocks.filter((b) => SHELL.has(b.lang)).flatMap((b) => b.lines), ...codeSpans(prose)];
  const found: ShownCommand[] = [];
  for (const snippet of snippets) {
    for (const segment of segments(withoutComment(snippet))) {
      // At the start of the segment, after any `NAME=value` environment words.
      const cli =
        /^\s*(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:npx\s+|node\s+)?(?:\.\/bin\/livecontext\.js|bin\/livecontext\.js|node_modules\/\.bin\/livecontext|livecontext)\s+([a-z][a-z-]*|--help)(.*)$/.exec(
          segment,
        );
      if (cli) {
        const rest = cli[2].split(/\s--(?:\s|$)/)[0]; // `--` ends options
        const options = [...rest.replace(/"[^"]*"|'[^']*'/g, '').matchAll(/(?:^|[\s[(|])(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]);
        found.push({ kind: 'cli', command: cli[1], options: [...new Set(options)].filter((o) => o !== '--help'), text: segment.trim() });
      }
      for (const npm of segment.matchAll(/(?:^|\s)npm\s+(?:run\s+([\w:.-]+)|(start|test)\b)/g)) {
        found.push({ kind: 'npm', script: npm[1] ?? npm[2], text: segment.trim() });
      }
    }
  }
  return found;
}

/** A command line's commands: split at `|`, `||`, `;` and `&&`, but not inside `[a | b]` (a usage's alternatives). */
function segments(line: string): string[] {
  const out = [''];
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '[') depth++;
    if (c === ']') depth = Math.max(0, depth - 1);
    const separator = /^(\|\||\||;|&&)/.exec(line.slice(i));
    if (separator && depth === 0) {
      out.push('');
      i += separator[1].length - 1;
    } else out[out.length - 1] += c;
  }
  return out;
}

/** The line without its shell comment (`#` after a space, outside quotes). */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i);
  }
  return line;
}
