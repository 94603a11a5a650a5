/**
 * `list` and `state --json` through the quick reads (client/quick-read/): each answers and returns true,
 * or returns false having printed nothing, and the command then runs through AgentClient as before.
 */
import { type QuickReader, quickList, quickReader, quickState, unreachable } from '../client/quick-read/quick-reads';
import type { Values } from './argv';
import { printList } from './list-view';
import { terminalJson } from './terminal-text';

export async function quickListCmd(v: Values): Promise<boolean> {
  return withReader(async (reader) => {
    const list = await quickList(reader, { all: !!v.all });
    if (!list) return false;
    printList(v, list);
    return true;
  });
}

/** `state --json` of a running agent that answers at once (the view without --json also reads its running tools and forks). */
export async function quickStateCmd(agentId: string, v: Values): Promise<boolean> {
  if (!v.json) return false;
  return withReader(async (reader) => {
    const state = await quickState(reader, agentId);
    if (!state) return false;
    console.log(terminalJson(state));
    return true;
  });
}

async function withReader(read: (reader: QuickReader) => Promise<boolean>): Promise<boolean> {
  const reader = quickReader();
  if (!reader) return false;
  try {
    return await read(reader);
  } catch (err) {
    if (!unreachable(err)) throw err;
    const { unreachableServer } = await import('../common/connection');
    throw unreachableServer(reader.address, err);
  } finally {
    reader.channel.close();
  }
}
