/**
 * Request validation for the fake OpenAI Chat Completions server (fake-openai-server.ts).
 *
 * The point of the fake is to catch requests the real service would reject, so the checks are strict and
 * the messages copy the real API's wording (as seen in published error reports) wherever it is known:
 * code that string-matches OpenAI errors should behave the same against the fake as against the service.
 * Where the real wording is not known, the message says what is wrong in the same style.
 */
import { FAKE_IMAGE_TYPES, decodable, decodeStrictBase64, imageTypeOf } from './fake-image-check';

/** The `error` object of every OpenAI error body: `{"error": {message, type, param, code}}`. */
export interface OpenAIErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/**
 * Top-level request keys the Chat Completions API documents. Unknown keys are accepted (the brief asks the
 * fake not to reject extras); tests can use `unknownRequestKeys` to assert that nothing unexpected was sent.
 */
export const KNOWN_CHAT_COMPLETION_KEYS: readonly string[] = [
  'model',
  'messages',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'n',
  'stop',
  'max_tokens',
  'max_completion_tokens',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'user',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'seed',
  'service_tier',
  'store',
  'metadata',
  'reasoning_effort',
  'verbosity',
  'modalities',
  'audio',
  'prediction',
  'web_search_options',
  'functions',
  'function_call',
];

export function unknownRequestKeys(body: unknown): string[] {
  if (!isObject(body)) return [];
  return Object.keys(body).filter((k) => !KNOWN_CHAT_COMPLETION_KEYS.includes(k));
}

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];
const TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

/** Thrown inside validation and turned into the 400 body; keeps each check a single line. */
class Invalid extends Error {
  constructor(readonly error: OpenAIErrorObject) {
    super(error.message);
  }
}

const fail = (message: string, param: string | null, code: string | null = null): never => {
  throw new Invalid({ message, type: 'invalid_request_error', param, code });
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** How the real API names a JSON value's type in "expected X, but got Y instead." */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'an integer' : 'a decimal number';
  if (typeof v === 'boolean') return 'a boolean';
  if (typeof v === 'string') return 'a string';
  return 'an object';
}

const wrongType = (param: string, expected: string, v: unknown): never =>
  fail(`Invalid type for '${param}': expected ${expected}, but got ${typeName(v)} instead.`, param, 'invalid_type');
const missing = (param: string): never => fail(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
const badValue = (param: string, v: unknown, supported: string[]): never => {
  const list = supported.map((s) => `'${s}'`);
  const joined = list.length > 1 ? `${list.slice(0, -1).join(', ')}, and ${list[list.length - 1]}` : list[0];
  return fail(`Invalid value: '${String(v)}'. Supported values are: ${joined}.`, param, 'invalid_value');
};
const emptyArray = (param: string): never =>
  fail(`Invalid '${param}': empty array. Expected an array with minimum length 1, but got an empty array instead.`, param, 'empty_array');

/** The real API treats an explicit `null` on an optional parameter as "not given". */
const given = (v: unknown): boolean => v !== undefined && v !== null;

/** Returns the OpenAI error for a request the real service would reject with 400, or null if it is acceptable. */
export function validateChatCompletionRequest(body: unknown): OpenAIErrorObject | null {
  try {
    checkRequest(body);
    return null;
  } catch (e) {
    if (e instanceof Invalid) return e.error;
    throw e;
  }
}

function checkRequest(body: unknown): void {
  if (!isObject(body)) wrongType('body', 'an object', body);
  const b = body as Record<string, unknown>;

  if (b.model === undefined || b.model === null) fail('you must provide a model parameter', null);
  if (typeof b.model !== 'string') wrongType('model', 'a string', b.model);
  if ((b.model as string).length === 0) fail("Invalid 'model': empty string.", 'model', 'empty_string');

  if (b.messages === undefined) missing('messages');
  if (!Array.isArray(b.messages)) wrongType('messages', 'an array of objects', b.messages);
  const messages = b.messages as unknown[];
  if (messages.length === 0) emptyArray('messages');
  messages.forEach(checkMessage);
  checkToolCallPairing(messages as Record<string, unknown>[]);

  // This fake serves only the streaming protocol, which is what the framework uses.
  if (b.stream !== true) {
    fail("This fake OpenAI server only serves streaming chat completions: set 'stream': true.", 'stream');
  }
  if (given(b.stream_options)) {
    if (!isObject(b.stream_options)) wrongType('stream_options', 'an object', b.stream_options);
    const inc = (b.stream_options as Record<string, unknown>).include_usage;
    if (given(inc) && typeof inc !== 'boolean') wrongType('stream_options.include_usage', 'a boolean', inc);
  }

  checkNumber(b, 'temperature', 0, 2);
  checkNumber(b, 'top_p', 0, 1);
  checkNumber(b, 'presence_penalty', -2, 2);
  checkNumber(b, 'frequency_penalty', -2, 2);
  checkPositiveInt(b, 'max_tokens');
  checkPositiveInt(b, 'max_completion_tokens');
  if (given(b.n) && b.n !== 1) fail("This fake OpenAI server only supports 'n': 1.", 'n');
  if (given(b.stop)) {
    const stop = b.stop;
    if (Array.isArray(stop)) {
      if (stop.length > 4) {
        fail(
          `Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length ${stop.length} instead.`,
          'stop',
          'array_above_max_length',
        );
      }
      stop.forEach((s, i) => typeof s !== 'string' && wrongType(`stop[${i}]`, 'a string', s));
    } else if (typeof stop !== 'string') {
      wrongType('stop', 'a string or array of strings', stop);
    }
  }
  if (given(b.parallel_tool_calls) && typeof b.parallel_tool_calls !== 'boolean') {
    wrongType('parallel_tool_calls', 'a boolean', b.parallel_tool_calls);
  }
  checkTools(b);
  checkResponseFormat(b);
}

/** `response_format` as Structured Outputs takes it: a type, and for json_schema a valid name and an object schema. */
function checkResponseFormat(b: Record<string, unknown>): void {
  const rf = b.response_format;
  if (!given(rf)) return;
  if (!isObject(rf)) return void wrongType('response_format', 'an object', rf);
  if (!['text', 'json_object', 'json_schema'].includes(rf.type as string)) badValue('response_format.type', rf.type, ['json_object', 'json_schema', 'text']);
  if (rf.type !== 'json_schema') return;
  const js = rf.json_schema;
  if (!isObject(js)) return void missing('response_format.json_schema');
  if (typeof js.name !== 'string') return void missing('response_format.json_schema.name');
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(js.name)) {
    fail(
      `Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      'response_format.json_schema.name',
      'invalid_value',
    );
  }
  if (given(js.schema) && !isObject(js.schema)) wrongType('response_format.json_schema.schema', 'an object', js.schema);
  if (given(js.strict) && typeof js.strict !== 'boolean') wrongType('response_format.json_schema.strict', 'a boolean', js.strict);
}

function checkNumber(b: Record<string, unknown>, key: string, min: number, max: number): void {
  const v = b[key];
  if (!given(v)) return;
  if (typeof v !== 'number' || !Number.isFinite(v)) return void wrongType(key, 'a number', v);
  if (v < min) {
    fail(`Invalid '${key}': decimal below minimum value. Expected a value >= ${min}, but got ${v} instead.`, key, 'decimal_below_min_value');
  }
  if (v > max) {
    fail(`Invalid '${key}': decimal above maximum value. Expected a value <= ${max}, but got ${v} instead.`, key, 'decimal_above_max_value');
  }
}

function checkPositiveInt(b: Record<string, unknown>, key: string): void {
  const v = b[key];
  if (!given(v)) return;
  if (typeof v !== 'number' || !Number.isInteger(v)) return void wrongType(key, 'an integer', v);
  if (v < 1) {
    fail(`Invalid '${key}': integer below minimum value. Expected a value >= 1, but got ${v} instead.`, key, 'integer_below_min_value');
  }
}

/** Content parts: text everywhere; user messages may also carry images; assistant messages may carry refusals. */
function checkContent(content: unknown, param: string, partTypes: string[], nullable: boolean): void {
  if (typeof content === 'string') return;
  if (content === null && nullable) return;
  if (!Array.isArray(content)) return void wrongType(param, 'one of a string or array of objects', content);
  if (content.length === 0) emptyArray(param);
  content.forEach((part, k) => {
    const p = `${param}[${k}]`;
    if (!isObject(part)) return void wrongType(p, 'an object', part);
    if (part.type === undefined) missing(`${p}.type`);
    if (!partTypes.includes(part.type as string)) badValue(`${p}.type`, part.type, partTypes);
    if (part.type === 'text' && typeof part.text !== 'string') {
      if (part.text === undefined) missing(`${p}.text`);
      wrongType(`${p}.text`, 'a string', part.text);
    }
    if (part.type === 'refusal' && typeof part.refusal !== 'string') wrongType(`${p}.refusal`, 'a string', part.refusal);
    if (part.type === 'image_url') checkImagePart(part, p);
  });
}

/** The largest image the API takes (per image). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
const IMAGE_FORMATS = "['png', 'jpeg', 'gif', 'webp']";

/**
 * An `image_url` part: `{image_url: {url, detail?}}` with an http(s) URL or a base64 `data:` URL of a
 * PNG, JPEG, GIF or WebP image whose bytes are that image (the service decodes it and refuses otherwise).
 */
/** The error the service answers for an image it cannot decode. */
export const INVALID_IMAGE_ERROR: OpenAIErrorObject = {
  message: `The image data you provided does not represent a valid image. Please check your input and try again with one of the supported image formats: ${IMAGE_FORMATS}.`,
  type: 'invalid_request_error',
  param: null,
  code: 'invalid_image_format',
};

function checkImagePart(part: Record<string, unknown>, p: string): void {
  if (part.image_url === undefined) missing(`${p}.image_url`);
  if (!isObject(part.image_url)) return void wrongType(`${p}.image_url`, 'an object', part.image_url);
  const { url, detail } = part.image_url;
  if (url === undefined) missing(`${p}.image_url.url`);
  if (typeof url !== 'string') return void wrongType(`${p}.image_url.url`, 'a string', url);
  if (given(detail) && !['auto', 'low', 'high'].includes(detail as string)) badValue(`${p}.image_url.detail`, detail, ['auto', 'low', 'high']);
  if (/^https?:\/\/\S+$/i.test(url)) return;
  const dataUrl = /^data:([^;,]*);base64,(.*)$/s.exec(url);
  if (!dataUrl) {
    fail(
      `Invalid '${p}.image_url.url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got an invalid value.`,
      `${p}.image_url.url`,
      'invalid_value',
    );
  }
  const [, mime, data] = dataUrl!;
  if (!(FAKE_IMAGE_TYPES as readonly string[]).includes(mime)) {
    fail(`You uploaded an unsupported image. Please make sure your image has of one the following formats: ${IMAGE_FORMATS}.`, null, 'invalid_image_format');
  }
  const bytes = decodeStrictBase64(data);
  if (!bytes) fail(`Invalid '${p}.image_url.url': the base64 data of the image is not valid base64.`, `${p}.image_url.url`, 'invalid_value');
  if (bytes!.length > MAX_IMAGE_BYTES) fail(`Invalid '${p}.image_url.url': the image is larger than 20 MB.`, `${p}.image_url.url`, 'image_too_large');
  if (imageTypeOf(bytes!) === undefined || !decodable(bytes!)) {
    fail(
      `The image data you provided does not represent a valid image. Please check your input and try again with one of the supported image formats: ${IMAGE_FORMATS}.`,
      null,
      'invalid_image_format',
    );
  }
}

function checkMessage(m: unknown, i: number): void {
  const at = `messages[${i}]`;
  if (!isObject(m)) return void wrongType(at, 'an object', m);
  if (m.role === undefined) missing(`${at}.role`);
  if (!ROLES.includes(m.role as string)) badValue(`${at}.role`, m.role, ROLES);
  if (given(m.name) && typeof m.name !== 'string') wrongType(`${at}.name`, 'a string', m.name);

  switch (m.role) {
    case 'system':
    case 'developer':
      if (m.content === undefined) missing(`${at}.content`);
      return checkContent(m.content, `${at}.content`, ['text'], false);
    case 'user':
      if (m.content === undefined) missing(`${at}.content`);
      return checkContent(m.content, `${at}.content`, ['text', 'image_url'], false);
    case 'tool':
      if (m.tool_call_id === undefined) missing(`${at}.tool_call_id`);
      if (typeof m.tool_call_id !== 'string') wrongType(`${at}.tool_call_id`, 'a string', m.tool_call_id);
      if (m.content === undefined) missing(`${at}.content`);
      return checkContent(m.content, `${at}.content`, ['text'], false);
    case 'assistant': {
      const hasCalls = given(m.tool_calls);
      // The real API's wording for an assistant turn with neither content nor tool calls.
      if (!given(m.content) && !hasCalls) fail("Invalid value for 'content': expected a string, got null.", `messages.[${i}].content`);
      if (m.content !== undefined) checkContent(m.content, `${at}.content`, ['text', 'refusal'], true);
      if (!hasCalls) return;
      if (!Array.isArray(m.tool_calls)) return void wrongType(`${at}.tool_calls`, 'an array of objects', m.tool_calls);
      if (m.tool_calls.length === 0) emptyArray(`${at}.tool_calls`);
      m.tool_calls.forEach((c, k) => {
        const p = `${at}.tool_calls[${k}]`;
        if (!isObject(c)) return void wrongType(p, 'an object', c);
        if (typeof c.id !== 'string') return void (c.id === undefined ? missing(`${p}.id`) : wrongType(`${p}.id`, 'a string', c.id));
        if (c.type === undefined) missing(`${p}.type`);
        if (c.type !== 'function') badValue(`${p}.type`, c.type, ['function']);
        if (!isObject(c.function)) return void (c.function === undefined ? missing(`${p}.function`) : wrongType(`${p}.function`, 'an object', c.function));
        if (typeof c.function.name !== 'string') missing(`${p}.function.name`);
        // Arguments are a JSON *string* on the wire; sending the parsed object is a classic bug.
        if (typeof c.function.arguments !== 'string') {
          if (c.function.arguments === undefined) missing(`${p}.function.arguments`);
          wrongType(`${p}.function.arguments`, 'a string', c.function.arguments);
        }
      });
      return;
    }
  }
}

/**
 * An assistant turn with tool_calls must be followed, immediately, by consecutive `tool` messages answering
 * every call id; a `tool` message anywhere else (or answering an unknown or already answered id) is stray.
 * Real wording and `messages.[i].role` params (note the dot before the bracket, as the real API writes it).
 * For the missing-responses error, `i` is the index of the assistant message whose calls went unanswered.
 */
function checkToolCallPairing(messages: Record<string, unknown>[]): void {
  let pending: Set<string> | null = null; // ids of the current assistant turn not yet answered
  let assistantIndex = -1;
  const closeRun = () => {
    if (pending && pending.size > 0) {
      fail(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
          `The following tool_call_ids did not have response messages: ${[...pending].join(', ')}`,
        `messages.[${assistantIndex}].role`,
      );
    }
    pending = null;
  };
  messages.forEach((m, i) => {
    if (m.role === 'tool') {
      const id = m.tool_call_id as string;
      if (!pending || !pending.delete(id)) {
        fail("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`);
      }
      return;
    }
    closeRun();
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      pending = new Set(m.tool_calls.map((c) => (c as { id: string }).id));
      assistantIndex = i;
    }
  });
  closeRun();
}

function checkTools(b: Record<string, unknown>): void {
  const names: string[] = [];
  if (given(b.tools)) {
    if (!Array.isArray(b.tools)) return void wrongType('tools', 'an array of objects', b.tools);
    if (b.tools.length === 0) emptyArray('tools');
    b.tools.forEach((t, i) => {
      const p = `tools[${i}]`;
      if (!isObject(t)) return void wrongType(p, 'an object', t);
      if (t.type === undefined) missing(`${p}.type`);
      if (t.type !== 'function') badValue(`${p}.type`, t.type, ['function']);
      if (t.function === undefined) missing(`${p}.function`);
      if (!isObject(t.function)) return void wrongType(`${p}.function`, 'an object', t.function);
      const f = t.function;
      if (f.name === undefined) missing(`${p}.function.name`);
      if (typeof f.name !== 'string') return void wrongType(`${p}.function.name`, 'a string', f.name);
      if (f.name.length > 64) {
        fail(
          `Invalid '${p}.function.name': string too long. Expected a string with maximum length 64, but got a string with length ${f.name.length} instead.`,
          `${p}.function.name`,
          'string_above_max_length',
        );
      }
      if (!TOOL_NAME.test(f.name)) {
        fail(
          `Invalid '${p}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `${p}.function.name`,
          'invalid_value',
        );
      }
      if (given(f.description) && typeof f.description !== 'string') wrongType(`${p}.function.description`, 'a string', f.description);
      if (given(f.strict) && typeof f.strict !== 'boolean') wrongType(`${p}.function.strict`, 'a boolean', f.strict);
      if (f.parameters !== undefined) {
        const type = isObject(f.parameters) ? f.parameters.type : undefined;
        if (type !== 'object') {
          fail(
            `Invalid schema for function '${f.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(type ?? 'None')}"'.`,
            `${p}.function.parameters`,
            'invalid_function_parameters',
          );
        }
      }
      names.push(f.name);
    });
  }

  const choice = b.tool_choice;
  if (!given(choice)) return;
  if (names.length === 0) {
    fail("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice');
  }
  if (typeof choice === 'string') {
    if (!['none', 'auto', 'required'].includes(choice)) badValue('tool_choice', choice, ['none', 'auto', 'required']);
    return;
  }
  if (!isObject(choice)) return void wrongType('tool_choice', 'one of a string or object', choice);
  if (choice.type !== 'function') badValue('tool_choice.type', choice.type, ['function']);
  if (!isObject(choice.function) || typeof choice.function.name !== 'string') return void missing('tool_choice.function.name');
  if (!names.includes(choice.function.name)) {
    fail(`Invalid value for 'tool_choice': function '${choice.function.name}' is not among the provided 'tools'.`, 'tool_choice');
  }
}
