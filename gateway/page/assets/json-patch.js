/** RFC 6902 JSON Patch, enough for STATE_DELTA events: returns a patched copy, the input is untouched. */

const unescape = (token) => token.replace(/~1/g, '/').replace(/~0/g, '~');
const pointer = (path) => (path === '' ? [] : path.split('/').slice(1).map(unescape));

function parentOf(doc, keys) {
  let node = doc;
  for (const key of keys.slice(0, -1)) {
    node = node?.[Array.isArray(node) ? Number(key) : key];
    if (node === undefined || node === null || typeof node !== 'object') throw new Error(`JSON Patch: no parent at /${keys.join('/')}`);
  }
  return node;
}

function get(doc, keys) {
  return keys.reduce((node, key) => node?.[Array.isArray(node) ? Number(key) : key], doc);
}

function put(doc, keys, value, insert) {
  if (keys.length === 0) return value;
  const parent = parentOf(doc, keys);
  const key = keys[keys.length - 1];
  if (!Array.isArray(parent)) parent[key] = value;
  else if (key === '-') parent.push(value);
  else if (insert) parent.splice(Number(key), 0, value);
  else parent[Number(key)] = value;
  return doc;
}

function remove(doc, keys) {
  if (keys.length === 0) return undefined;
  const parent = parentOf(doc, keys);
  const key = keys[keys.length - 1];
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
  return doc;
}

/** Applies `operations` to a copy of `doc`. */
export function applyPatch(doc, operations) {
  let out = structuredClone(doc ?? {});
  for (const op of operations) {
    const keys = pointer(op.path);
    if (op.op === 'add') out = put(out, keys, structuredClone(op.value), true);
    else if (op.op === 'replace') out = put(out, keys, structuredClone(op.value), false);
    else if (op.op === 'remove') out = remove(out, keys);
    else if (op.op === 'copy') out = put(out, keys, structuredClone(get(out, pointer(op.from))), true);
    else if (op.op === 'move') {
      const value = get(out, pointer(op.from));
      out = put(remove(out, pointer(op.from)), keys, value, true);
    }
    // 'test' changes nothing; a failed test would mean the page missed an event, and the next snapshot fixes it.
  }
  return out;
}
