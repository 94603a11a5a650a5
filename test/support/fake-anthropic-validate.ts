/**
 * Request validation for the fake Anthropic server (test/support/fake-anthropic-server.ts).
 *
 * The point of the fake is to fail where the real Messages API fails, so a provider bug (roles that do
 * not alternate, a tool_use left unanswered, a fifth cache breakpoint...) shows up in a unit test rather
 * than in production. Messages copy the real API's wording where it is known (they are pydantic-style
 * `path: problem` strings); where the real wording is unknown, the message says plainly what is wrong.
 *
 * On success it also returns the request cut into "segments" (one per tool, system block and message
 * block, in the API's cache order tools → system → messages) and the segments that carry a
 * cache_control breakpoint, which is what the server's prompt-cache simulation needs.
 */

import { FAKE_IMAGE_TYPES, decodable, decodeStrictBase64, imageTypeOf } from './fake-image-check';

/** A 400 invalid_request_error with the real API's message. */
export class InvalidRequestError extends Error {}

export interface ValidatedRequest {
  /** Canonical serialization of each cacheable unit, in cache order; their concatenation is the prompt. */
  segments: string[];
  /** Indexes into `segments` of the blocks marked with cache_control. */
  breakpoints: number[];
}

type Obj = Record<string, unknown>;

const TOP_LEVEL_FIELDS = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'stop_sequences',
  'tools',
  'tool_choice',
  'thinking',
  'metadata',
  'service_tier',
  'container',
  'context_management',
  'mcp_servers',
  'output_config',
  'inference_geo',
]);

/** Fields each block type accepts. The response-only fields (citations, caller...) are listed because the
 * real API accepts a response block echoed back verbatim, and providers do exactly that. */
const BLOCK_FIELDS: Record<string, string[]> = {
  text: ['type', 'text', 'cache_control', 'citations'],
  image: ['type', 'source', 'cache_control'],
  document: ['type', 'source', 'cache_control', 'citations', 'context', 'title'],
  tool_use: ['type', 'id', 'name', 'input', 'cache_control', 'caller', 'toolset_name'],
  tool_result: ['type', 'tool_use_id', 'content', 'is_error', 'cache_control'],
  thinking: ['type', 'thinking', 'signature'],
  redacted_thinking: ['type', 'data'],
};
const BLOCK_ROLES: Record<string, 'user' | 'assistant' | undefined> = {
  tool_use: 'assistant',
  thinking: 'assistant',
  redacted_thinking: 'assistant',
  tool_result: 'user',
  image: 'user',
  document: 'user',
};
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_CACHE_BREAKPOINTS = 4;
const THINKING_DOCS = 'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

function fail(message: string): never {
  throw new InvalidRequestError(message);
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function noExtras(o: Obj, allowed: Iterable<string>, path: string): void {
  const ok = new Set(allowed);
  for (const key of Object.keys(o)) if (!ok.has(key)) fail(`${path}${key}: Extra inputs are not permitted`);
}

function requireObj(v: unknown, path: string): Obj {
  if (!isObj(v)) fail(`${path}: Input should be a valid dictionary or object to extract fields from`);
  return v;
}

function requireString(o: Obj, key: string, path: string): string {
  if (!(key in o)) fail(`${path}.${key}: Field required`);
  if (typeof o[key] !== 'string') fail(`${path}.${key}: Input should be a valid string`);
  return o[key] as string;
}

function numberInRange(o: Obj, key: string, min: number, max: number): void {
  if (o[key] === undefined) return;
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${key}: Input should be a valid number`);
  if (v < min) fail(`${key}: Input should be greater than or equal to ${min}`);
  if (v > max) fail(`${key}: Input should be less than or equal to ${max}`);
}

/**
 * Canonical JSON: keys sorted, cache_control dropped. Dropping cache_control matters: moving a breakpoint
 * to a later block must not change the earlier prefix, or a growing conversation would never hit the cache.
 */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObj(v)) {
    const keys = Object.keys(v)
      .filter((k) => k !== 'cache_control' && v[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** Counts a block's breakpoint (and checks its shape); null means "no breakpoint", as in the SDK types. */
function cacheControl(o: Obj, path: string): boolean {
  const cc = o.cache_control;
  if (cc === undefined || cc === null) return false;
  const c = requireObj(cc, `${path}.cache_control`);
  noExtras(c, ['type', 'ttl'], `${path}.cache_control.`);
  if (c.type !== 'ephemeral') fail(`${path}.cache_control.type: Input should be 'ephemeral'`);
  if (c.ttl !== undefined && c.ttl !== '5m' && c.ttl !== '1h') fail(`${path}.cache_control.ttl: Input should be '5m' or '1h'`);
  return true;
}

function checkText(text: unknown, path: string): void {
  if (typeof text !== 'string') fail(`${path}.text: Input should be a valid string`);
  if (text.length === 0) fail('messages: text content blocks must be non-empty');
  if (text.trim().length === 0) fail('messages: text content blocks must contain non-whitespace text');
}

/** The per-image limit, on the base64 text as sent. */
const MAX_IMAGE_BASE64_BYTES = 5 * 1024 * 1024;

/**
 * An image block's source: base64 data of the media type it names (the service decodes the image and
 * refuses a mismatch), a URL, or an uploaded file's id.
 */
function checkImageSource(b: Obj, path: string): void {
  if (!('source' in b)) fail(`${path}.source: Field required`);
  const source = requireObj(b.source, `${path}.source`);
  const at = `${path}.source.${String(source.type)}`;
  if (source.type === 'base64') {
    noExtras(source, ['type', 'media_type', 'data'], `${at}.`);
    if (!('media_type' in source)) fail(`${at}.media_type: Field required`);
    if (!(FAKE_IMAGE_TYPES as readonly unknown[]).includes(source.media_type)) {
      fail(
        `${at}.media_type: Input should ${FAKE_IMAGE_TYPES.map((t) => `'${t}'`)
          .join(', ')
          .replace(/, ([^,]*)$/, ' or $1')}`,
      );
    }
    const data = requireString(source, 'data', at);
    if (data.length > MAX_IMAGE_BASE64_BYTES) fail(`${at}: image exceeds 5 MB maximum: ${data.length} bytes > ${MAX_IMAGE_BASE64_BYTES} bytes`);
    const bytes = decodeStrictBase64(data);
    if (!bytes) fail(`${at}.data: The image data is not valid base64.`);
    const actual = imageTypeOf(bytes);
    if (!actual || !decodable(bytes)) fail(`${at}.data: Could not process image`);
    if (actual !== source.media_type)
      fail(`${at}.data: The image was specified using the ${String(source.media_type)} media type, but the image appears to be a ${actual} image`);
  } else if (source.type === 'url') {
    noExtras(source, ['type', 'url'], `${at}.`);
    const url = requireString(source, 'url', at);
    if (!/^https?:\/\/\S+$/i.test(url)) fail(`${at}.url: Input should be a valid URL`);
  } else if (source.type === 'file') {
    noExtras(source, ['type', 'file_id'], `${at}.`);
    requireString(source, 'file_id', at);
  } else {
    fail(`${path}.source.type: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`);
  }
}

function checkToolResultContent(content: unknown, path: string): void {
  if (content === undefined || typeof content === 'string') return;
  if (!Array.isArray(content)) fail(`${path}.content: Input should be a valid string or a valid list`);
  content.forEach((raw, k) => {
    const b = requireObj(raw, `${path}.content.${k}`);
    if (b.type === 'text') {
      noExtras(b, BLOCK_FIELDS.text, `${path}.content.${k}.text.`);
      checkText(b.text, `${path}.content.${k}.text`);
    } else if (b.type === 'image') {
      noExtras(b, BLOCK_FIELDS.image, `${path}.content.${k}.image.`);
      checkImageSource(b, `${path}.content.${k}.image`);
    } else {
      fail(`${path}.content.${k}.type: Input tag '${String(b.type)}' found using 'type' does not match any of the expected tags: 'text', 'image'`);
    }
  });
}

/** Shape of one message block; returns whether it carries a cache breakpoint. */
function checkBlock(b: Obj, role: string, path: string): boolean {
  const type = b.type;
  if (typeof type !== 'string' || !(type in BLOCK_FIELDS)) {
    fail(
      `${path}.type: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: ${Object.keys(BLOCK_FIELDS)
        .map((t) => `'${t}'`)
        .join(', ')}`,
    );
  }
  const onlyIn = BLOCK_ROLES[type];
  if (onlyIn && onlyIn !== role) fail(`${path}: \`${type}\` blocks may only appear in \`${onlyIn}\` messages, not in \`${role}\` messages`);
  noExtras(b, BLOCK_FIELDS[type], `${path}.${type}.`);
  switch (type) {
    case 'text':
      checkText(b.text, `${path}.text`);
      break;
    case 'image':
      checkImageSource(b, `${path}.image`);
      break;
    case 'document':
      requireObj(b.source, `${path}.${type}.source`); // the fake does not look into documents
      break;
    case 'tool_use': {
      const id = requireString(b, 'id', `${path}.tool_use`);
      if (!TOOL_USE_ID.test(id)) fail(`${path}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      const name = requireString(b, 'name', `${path}.tool_use`);
      if (!TOOL_NAME.test(name)) fail(`${path}.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
      if (!('input' in b)) fail(`${path}.tool_use.input: Field required`);
      if (!isObj(b.input)) fail(`${path}.tool_use.input: Input should be a valid dictionary`);
      break;
    }
    case 'tool_result':
      requireString(b, 'tool_use_id', `${path}.tool_result`);
      if (b.is_error !== undefined && typeof b.is_error !== 'boolean') fail(`${path}.tool_result.is_error: Input should be a valid boolean`);
      checkToolResultContent(b.content, `${path}.tool_result`);
      break;
    case 'thinking':
      requireString(b, 'thinking', `${path}.thinking`);
      requireString(b, 'signature', `${path}.thinking`);
      break;
    case 'redacted_thinking':
      requireString(b, 'data', `${path}.redacted_thinking`);
      break;
  }
  return cacheControl(b, path);
}

function checkTools(body: Obj, seg: (s: string, bp: boolean) => void): Set<string> {
  const names = new Set<string>();
  if (body.tools === undefined) return names;
  if (!Array.isArray(body.tools)) fail('tools: Input should be a valid list');
  body.tools.forEach((raw, i) => {
    const t = requireObj(raw, `tools.${i}`);
    if (t.type !== undefined && t.type !== 'custom') fail(`tools.${i}.type: this fake server supports only custom tools, got '${String(t.type)}'`);
    const p = `tools.${i}.custom`;
    noExtras(t, ['type', 'name', 'description', 'input_schema', 'cache_control'], `${p}.`);
    const name = requireString(t, 'name', p);
    if (!TOOL_NAME.test(name)) fail(`${p}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
    if (names.has(name)) fail('tools: Tool names must be unique.');
    names.add(name);
    if (t.description !== undefined && typeof t.description !== 'string') fail(`${p}.description: Input should be a valid string`);
    if (!('input_schema' in t)) fail(`${p}.input_schema: Field required`);
    const schema = requireObj(t.input_schema, `${p}.input_schema`);
    if (schema.type !== 'object') fail(`${p}.input_schema.type: Input should be 'object'`);
    seg(`tool:${canonical(t)}`, cacheControl(t, `tools.${i}`));
  });
  return names;
}

function checkToolChoice(body: Obj, toolNames: Set<string>): void {
  if (body.tool_choice === undefined) return;
  const tc = requireObj(body.tool_choice, 'tool_choice');
  const type = tc.type;
  if (type === 'none') noExtras(tc, ['type'], 'tool_choice.none.');
  else if (type === 'auto' || type === 'any') noExtras(tc, ['type', 'disable_parallel_tool_use'], `tool_choice.${type}.`);
  else if (type === 'tool') {
    noExtras(tc, ['type', 'name', 'disable_parallel_tool_use'], 'tool_choice.tool.');
    const name = requireString(tc, 'name', 'tool_choice.tool');
    if (!toolNames.has(name)) fail(`tool_choice.tool.name: tool '${name}' was not found in \`tools\``);
  } else fail(`tool_choice.type: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'`);
  if (tc.disable_parallel_tool_use !== undefined && typeof tc.disable_parallel_tool_use !== 'boolean') {
    fail(`tool_choice.${type}.disable_parallel_tool_use: Input should be a valid boolean`);
  }
  if (toolNames.size === 0 && type !== 'none') fail('tool_choice may only be specified while providing tools.');
}

/** `thinking` config and the sampling options it excludes (as the real API enforces them). */
function checkThinking(body: Obj, maxTokens: number): void {
  if (body.thinking === undefined) return;
  const th = requireObj(body.thinking, 'thinking');
  if (th.type === 'disabled' || th.type === 'adaptive') {
    noExtras(th, ['type'], `thinking.${th.type}.`);
    if (th.type === 'disabled') return;
  } else if (th.type === 'enabled') {
    noExtras(th, ['type', 'budget_tokens'], 'thinking.enabled.');
    const budget = th.budget_tokens;
    if (budget === undefined) fail('thinking.enabled.budget_tokens: Field required');
    if (typeof budget !== 'number' || !Number.isInteger(budget)) fail('thinking.enabled.budget_tokens: Input should be a valid integer');
    if (budget < 1024) fail('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if (budget >= maxTokens) fail(`\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${THINKING_DOCS}#max-tokens-and-context-window-size`);
  } else {
    fail(`thinking.type: Input tag '${String(th.type)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'`);
  }
  if (body.temperature !== undefined && body.temperature !== 1)
    fail(`\`temperature\` may only be set to 1 when thinking is enabled. ${THINKING_DOCS}#feature-compatibility`);
  if (body.top_k !== undefined) fail(`\`top_k\` must be unset when thinking is enabled. ${THINKING_DOCS}#feature-compatibility`);
  if (typeof body.top_p === 'number' && body.top_p < 0.95)
    fail(`\`top_p\` must be greater than or equal to 0.95 or unset when thinking is enabled. ${THINKING_DOCS}#feature-compatibility`);
  const tc = body.tool_choice as Obj | undefined;
  if (tc && (tc.type === 'any' || tc.type === 'tool')) fail('Thinking may not be enabled when tool_choice forces tool use.');
}

/**
 * Pairing of tool_use and tool_result, as the real API enforces it: every tool_use of assistant message N
 * is answered by a tool_result at the start of message N+1, and every tool_result answers a tool_use of
 * the message just before it. The real API only looks at the leading run of tool_result blocks, so a
 * tool_result placed after a text block leaves its tool_use unanswered; the message says so.
 */
function checkToolPairing(messages: Obj[]): void {
  const seenToolUse = new Set<string>();
  messages.forEach((m, i) => {
    const blocks = Array.isArray(m.content) ? (m.content as Obj[]) : [];
    if (m.role === 'assistant') {
      blocks.forEach((b, j) => {
        if (b.type !== 'tool_use') return;
        if (seenToolUse.has(b.id as string)) fail(`messages.${i}.content.${j}: \`tool_use\` ids must be unique`);
        seenToolUse.add(b.id as string);
      });
      const ids = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
      const next = messages[i + 1];
      const nextBlocks = next && Array.isArray(next.content) ? (next.content as Obj[]) : [];
      const leading = new Set<string>();
      for (const b of nextBlocks) {
        if (b.type !== 'tool_result') break;
        leading.add(b.tool_use_id as string);
      }
      const missing = ids.filter((id) => !leading.has(id));
      if (missing.length > 0) {
        const late = nextBlocks.findIndex((b) => b.type === 'tool_result' && missing.includes(b.tool_use_id as string));
        const hint =
          late >= 0 ? ` (messages.${i + 1}.content.${late} answers it, but \`tool_result\` blocks must come before any other block in a user message.)` : '';
        fail(
          `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.${hint}`,
        );
      }
      return;
    }
    const prev = messages[i - 1];
    const prevIds = new Set(prev && Array.isArray(prev.content) ? (prev.content as Obj[]).filter((b) => b.type === 'tool_use').map((b) => b.id as string) : []);
    const answered = new Set<string>();
    let other = -1;
    blocks.forEach((b, j) => {
      if (b.type !== 'tool_result') {
        if (other < 0) other = j;
        return;
      }
      const id = b.tool_use_id as string;
      if (!prevIds.has(id)) {
        fail(
          `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
      if (answered.has(id)) fail(`messages.${i}.content.${j}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`);
      answered.add(id);
      if (other >= 0)
        fail(
          `messages.${i}.content.${j}: \`tool_result\` blocks must come before any other block in a user message (found one after messages.${i}.content.${other}, a \`${String(blocks[other].type)}\` block)`,
        );
    });
  });
}

function checkMessages(body: Obj, seg: (s: string, bp: boolean) => void): void {
  const messages = body.messages as unknown[];
  const msgs = messages.map((raw, i) => {
    const m = requireObj(raw, `messages.${i}`);
    noExtras(m, ['role', 'content'], `messages.${i}.`);
    if (!('role' in m)) fail(`messages.${i}.role: Field required`);
    if (m.role !== 'user' && m.role !== 'assistant') fail(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    if (!('content' in m)) fail(`messages.${i}.content: Field required`);
    const isLast = i === messages.length - 1;
    const emptyOk = isLast && m.role === 'assistant'; // the optional prefill
    const empty = () => fail(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    if (typeof m.content === 'string') {
      if (m.content.length === 0 && !emptyOk) empty();
      if (m.content.length > 0) seg(`${String(m.role)}:${canonical({ type: 'text', text: m.content })}`, false);
    } else if (Array.isArray(m.content)) {
      if (m.content.length === 0 && !emptyOk) empty();
      m.content.forEach((rawBlock, j) => {
        const path = `messages.${i}.content.${j}`;
        const b = requireObj(rawBlock, path);
        seg(`${String(m.role)}:${canonical(b)}`, checkBlock(b, m.role as string, path));
      });
    } else fail(`messages.${i}.content: Input should be a valid string or a valid list`);
    if (isLast && m.role === 'assistant') {
      const last = typeof m.content === 'string' ? m.content : (m.content as Obj[]).at(-1)?.text;
      if (typeof last === 'string' && /\s$/.test(last)) fail('messages: final assistant content cannot end with trailing whitespace');
    }
    return m;
  });
  if (msgs[0].role !== 'user') fail('messages: first message must use the "user" role');
  for (let i = 1; i < msgs.length; i++) {
    if (msgs[i].role === msgs[i - 1].role) {
      fail(`messages: roles must alternate between "user" and "assistant", but found multiple "${String(msgs[i].role)}" roles in a row`);
    }
  }
  checkToolPairing(msgs);
}

/** Throws InvalidRequestError (→ 400) on anything the real API rejects; see the file comment. */
export function validateMessagesRequest(raw: unknown): ValidatedRequest {
  const body = requireObj(raw, 'body');
  noExtras(body, TOP_LEVEL_FIELDS, '');
  const segments: string[] = [];
  const breakpoints: number[] = [];
  const seg = (s: string, bp: boolean) => {
    if (bp) breakpoints.push(segments.length);
    segments.push(`${s}\n`);
  };

  if (!('model' in body)) fail('model: Field required');
  if (typeof body.model !== 'string') fail('model: Input should be a valid string');
  if (body.model.length === 0) fail('model: String should have at least 1 character');
  if (!('max_tokens' in body)) fail('max_tokens: Field required');
  const maxTokens = body.max_tokens;
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens)) fail('max_tokens: Input should be a valid integer');
  if (maxTokens < 1) fail('max_tokens: Input should be greater than or equal to 1');
  if (!('messages' in body)) fail('messages: Field required');
  if (!Array.isArray(body.messages)) fail('messages: Input should be a valid list');
  if (body.messages.length === 0) fail('messages: at least one message is required');
  if (body.stream !== true) {
    fail('stream: this fake Anthropic server only serves streaming requests; send `stream: true` (non-streaming responses are not implemented)');
  }

  numberInRange(body, 'temperature', 0, 1);
  numberInRange(body, 'top_p', 0, 1);
  if (body.top_k !== undefined && (!Number.isInteger(body.top_k) || (body.top_k as number) < 0))
    fail('top_k: Input should be a valid integer greater than or equal to 0');
  if (body.stop_sequences !== undefined) {
    if (!Array.isArray(body.stop_sequences)) fail('stop_sequences: Input should be a valid list');
    body.stop_sequences.forEach((s, i) => {
      if (typeof s !== 'string') fail(`stop_sequences.${i}: Input should be a valid string`);
      if (s.trim().length === 0) fail('stop_sequences: each stop sequence must contain non-whitespace');
    });
  }
  if (body.metadata !== undefined) {
    const md = requireObj(body.metadata, 'metadata');
    noExtras(md, ['user_id'], 'metadata.');
    if (md.user_id !== undefined && md.user_id !== null && typeof md.user_id !== 'string') fail('metadata.user_id: Input should be a valid string');
  }

  const toolNames = checkTools(body, seg);
  checkToolChoice(body, toolNames);

  if (typeof body.system === 'string') {
    if (body.system.length > 0) seg(`system:${canonical({ type: 'text', text: body.system })}`, false);
  } else if (Array.isArray(body.system)) {
    body.system.forEach((raw, i) => {
      const b = requireObj(raw, `system.${i}`);
      if (b.type !== 'text') fail(`system.${i}.type: Input should be 'text'`);
      noExtras(b, BLOCK_FIELDS.text, `system.${i}.`);
      if (typeof b.text !== 'string') fail(`system.${i}.text: Input should be a valid string`);
      if (b.text.length === 0) fail('system: text content blocks must be non-empty');
      seg(`system:${canonical(b)}`, cacheControl(b, `system.${i}`));
    });
  } else if (body.system !== undefined) fail('system: Input should be a valid string or a valid list');

  checkMessages(body, seg);
  checkThinking(body, maxTokens);

  if (breakpoints.length > MAX_CACHE_BREAKPOINTS) {
    fail(`A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.`);
  }
  return { segments, breakpoints };
}
