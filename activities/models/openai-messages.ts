/**
 * Context messages → OpenAI Chat Completions messages (seed 000's OpenAI rules): tool results become
 * one `tool` message per call; content sections headed Markdown; the LiveScreen goes into the message
 * that carries it. Thinking is never sent (OpenAI has no place for another provider's reasoning).
 */
import type OpenAI from 'openai';
import { type ContextMessage, type ToolChoice, type ToolSpec, unwrap } from '../../agent';
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
      case 'model_input':
        out.push({ role: 'user', content: withLiveScreen(renderSections(m.sections), liveScreen) });
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

function withLiveScreen(text: string, liveScreen: string | undefined): string {
  return liveScreen ? `${text}\n\n${liveScreen}` : text;
}
