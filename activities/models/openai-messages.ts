/**
 * Context messages → OpenAI Chat Completions messages (seed 000's OpenAI rules): tool results become
 * one `tool` message per call; content sections headed Markdown; an input's images as `image_url`
 * parts; the LiveScreen goes into the message that carries it. Thinking is never sent (OpenAI has no
 * place for another provider's reasoning).
 */
import type OpenAI from 'openai';
import { type ContextMessage, type ModelInputEntry, type ResponseFormat, type ToolChoice, type ToolSpec, summaryText, unwrap } from '../../agent/index';
import { type Attachment, attachmentLabel } from '../../agent/attachments';
import { renderSections, renderToolResult } from './render-text';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export function toOpenAIMessages(messages: readonly ContextMessage[], system: string | undefined): Message[] {
  const out: Message[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of messages) {
    const liveScreen = message.kind === 'live_screen' ? message.liveScreen : undefined;
    const m = unwrap(message);
    switch (m.kind) {
      case 'system':
        out.push({ role: 'system', content: m.instruction });
        break;
      case 'summary':
        // A user message of its own, right after the system message: the prefix OpenAI caches stays the same until the next compaction.
        out.push({ role: 'user', content: summaryText(m) });
        break;
      case 'model_input':
        out.push({ role: 'user', content: m.attachments?.length ? inputParts(m, liveScreen) : withLiveScreen(renderSections(m.sections), liveScreen) });
        break;
      case 'model_output': {
        const text = m.contents.join('');
        out.push({
          role: 'assistant',
          content: text === '' ? null : text,
          ...(m.toolCalls.length
            ? {
                tool_calls: m.toolCalls.map((c) => ({
                  id: c.toolCallId,
                  type: 'function' as const,
                  function: { name: c.toolName, arguments: c.rawArguments },
                })),
              }
            : {}),
        });
        break;
      }
      case 'tool_results':
        m.results.forEach((r, i) => {
          const last = i === m.results.length - 1;
          let content = renderToolResult(r);
          if (last && m.executeError) content += `\n\nExecution error: ${m.executeError}`;
          out.push({ role: 'tool', tool_call_id: r.toolCallId, content: last ? withLiveScreen(content, liveScreen) : content });
        });
        break;
      default:
        // Unknown message kinds (from newer versions) are ignored, never sent half-understood.
        break;
    }
  }
  return out;
}

export function toOpenAITools(specs: readonly ToolSpec[]): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return specs.map((s) => ({ type: 'function', function: { name: s.name, description: s.description, parameters: s.parameters } }));
}

export function toOpenAIToolChoice(choice: ToolChoice): OpenAI.Chat.Completions.ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/**
 * A typed answer as Structured Outputs: `strict: false`, since strict mode accepts only a subset of
 * JSON Schema (every property required, no `additionalProperties` but false…); the answer is checked
 * against the whole schema after it arrives.
 */
export function toOpenAIResponseFormat(format: ResponseFormat): OpenAI.ResponseFormatJSONSchema {
  return { type: 'json_schema', json_schema: { name: format.name, schema: format.schema, strict: false } };
}

type Part = OpenAI.Chat.Completions.ChatCompletionContentPart;

/** An input with images: its text, each image as an `image_url` part (after its name), the LiveScreen last. */
function inputParts(m: ModelInputEntry, liveScreen: string | undefined): Part[] {
  const parts: Part[] = [{ type: 'text', text: renderSections(m.sections) }];
  for (const a of m.attachments ?? []) {
    const label = attachmentLabel(a);
    if (label) parts.push({ type: 'text', text: label });
    parts.push({ type: 'image_url', image_url: { url: imageUrl(a) } });
  }
  if (liveScreen) parts.push({ type: 'text', text: liveScreen });
  return parts;
}

/** A reference as it is; data as a `data:` URL, the form the API takes for inline images. */
function imageUrl(a: Attachment): string {
  return a.url ?? `data:${a.mediaType};base64,${a.data}`;
}

function withLiveScreen(text: string, liveScreen: string | undefined): string {
  return liveScreen ? `${text}\n\n${liveScreen}` : text;
}
