/** Loads user tools from a module (`livecontext worker --tools ./my-tools.js`): `export const tools = [...]`. */
import path from 'node:path';
import type { Tool } from '../activities';

export async function loadToolsModule(file: string): Promise<Tool[]> {
  const mod = (await import(path.resolve(file))) as { tools?: Tool[]; default?: { tools?: Tool[] } | Tool[] };
  const tools = mod.tools ?? (Array.isArray(mod.default) ? mod.default : mod.default?.tools);
  if (!Array.isArray(tools)) throw new Error(`${file} must export "tools": an array made with defineTool().`);
  return tools;
}
