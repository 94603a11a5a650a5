/** Loads user tools from a module (`livecontext worker --tools ./my-tools.js`): `export const tools = [...]`. */
import path from 'node:path';
import type { Tool } from '../activities/index';

type ToolsModule = { tools?: Tool[]; default?: { tools?: Tool[] } | Tool[] };

export async function loadToolsModule(file: string): Promise<Tool[]> {
  const full = path.resolve(file);
  if (/\.[cm]?ts$/.test(full)) registerTypeScript(file);
  let mod: ToolsModule;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require(full) as ToolsModule;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_REQUIRE_ESM') throw err;
    mod = (await import(full)) as ToolsModule; // an ES module (.mjs)
  }
  const tools = mod.tools ?? (Array.isArray(mod.default) ? mod.default : mod.default?.tools);
  if (!Array.isArray(tools)) throw new Error(`${file} must export "tools": an array made with defineTool().`);
  return tools;
}

/** TypeScript tools run through tsx when it is installed (the user's project first, then ours). */
function registerTypeScript(file: string): void {
  for (const from of [process.cwd(), __dirname]) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(require.resolve('tsx/cjs', { paths: [from] }));
      return;
    } catch {
      /* try the next place */
    }
  }
  throw new Error(`${file} is TypeScript: compile it to .js, or install tsx (npm install --save-dev tsx) to load it as it is.`);
}
