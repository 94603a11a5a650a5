/**
 * A task list the model keeps for long work: `todo_add` adds tasks, `todo_update` changes one's status
 * (or title). Shown in the LiveScreen as `## Tasks` once it has any, so a model that plans across many
 * turns (and many runs) sees where it is. Like the notebook, it runs in the workflow and is rebuilt from
 * history alone.
 */
import { z } from 'zod';
import type { JsonValue } from '../entries';
import type { Widget, WidgetKind, WidgetToolResult } from './widget';

export const TODO_ADD = 'todo_add';
export const TODO_UPDATE = 'todo_update';
/** Enough for any plan; the list is in every model call. */
export const MAX_TASKS = 100;
const MAX_TITLE_CHARS = 300;

export const TaskStatus = z.enum(['pending', 'in_progress', 'done', 'cancelled']);
export type TaskStatus = z.infer<typeof TaskStatus>;

const Title = z.string().trim().min(1, 'a task needs a title').max(MAX_TITLE_CHARS, `at most ${MAX_TITLE_CHARS} characters`);

export const TodoAddArgs = z
  .object({
    title: Title.optional().describe('One task to add (a short imperative title).'),
    titles: z.array(Title).max(20).optional().describe('Several tasks to add, in order.'),
  })
  .strict()
  .refine((a) => a.title !== undefined || (a.titles?.length ?? 0) > 0, 'give a title or titles');
export const TodoUpdateArgs = z
  .object({
    id: z.number().int().positive().describe('The task number shown in the Live Screen.'),
    status: TaskStatus.optional().describe('pending, in_progress, done or cancelled.'),
    title: Title.optional().describe('A new title, if it changed.'),
  })
  .strict();

export interface Task {
  id: number;
  title: string;
  status: TaskStatus;
}

const TaskListState = z.object({
  tasks: z.array(z.object({ id: z.number().int().positive(), title: z.string(), status: TaskStatus })),
  nextId: z.number().int().positive(),
});
type TaskListState = z.infer<typeof TaskListState>;

const MARK: Record<TaskStatus, string> = { pending: '[ ]', in_progress: '[~]', done: '[x]', cancelled: '[-]' };

export class TaskListWidget implements Widget {
  readonly name = 'task_list';
  readonly description = 'A task list the model keeps, always visible in the Live Screen.';
  readonly tools = [
    {
      name: TODO_ADD,
      description: 'Add tasks to your task list (shown in the Live Screen under "## Tasks"). Use it to plan work that takes several steps.',
      parameters: TodoAddArgs,
    },
    {
      name: TODO_UPDATE,
      description: 'Change a task of your task list: its status (pending, in_progress, done, cancelled) or its title.',
      parameters: TodoUpdateArgs,
    },
  ] as const;

  private state: TaskListState;

  constructor(state?: TaskListState) {
    this.state = state ? { tasks: state.tasks.map((t) => ({ ...t })), nextId: state.nextId } : { tasks: [], nextId: 1 };
  }

  get tasks(): readonly Task[] {
    return this.state.tasks;
  }

  renderLiveScreen(): string | undefined {
    if (this.state.tasks.length === 0) return undefined;
    const done = this.state.tasks.filter((t) => t.status === 'done').length;
    const lines = this.state.tasks.map((t) => `- ${MARK[t.status]} ${t.id}. ${t.title}${t.status === 'in_progress' ? ' (in progress)' : ''}`);
    return `## Tasks\n\n${done} of ${this.state.tasks.length} done.\n\n${lines.join('\n')}`;
  }

  executeTool(toolName: string, args: unknown): WidgetToolResult {
    if (toolName === TODO_ADD) {
      const parsed = TodoAddArgs.safeParse(args);
      if (!parsed.success) return invalid(toolName, parsed.error);
      const titles = [...(parsed.data.title !== undefined ? [parsed.data.title] : []), ...(parsed.data.titles ?? [])];
      const room = MAX_TASKS - this.state.tasks.length;
      if (titles.length > room) {
        return {
          status: 'Failed',
          result: `The list holds at most ${MAX_TASKS} tasks; ${room} more fit. Mark finished tasks done or cancelled and add fewer.`,
        };
      }
      const added = titles.map((title) => ({ id: this.state.nextId++, title, status: 'pending' as const }));
      this.state.tasks.push(...added);
      return {
        status: 'Success',
        result: `Added ${added.map((t) => `#${t.id}`).join(', ')}.`,
        metadata: { operation: 'add', ids: added.map((t) => t.id), task_count: this.state.tasks.length },
      };
    }
    if (toolName === TODO_UPDATE) {
      const parsed = TodoUpdateArgs.safeParse(args);
      if (!parsed.success) return invalid(toolName, parsed.error);
      const task = this.state.tasks.find((t) => t.id === parsed.data.id);
      if (!task) return { status: 'Failed', result: `There is no task #${parsed.data.id}. The tasks are numbered as in the Live Screen.` };
      if (parsed.data.status === undefined && parsed.data.title === undefined) return { status: 'Failed', result: 'Give a status or a title to change.' };
      const before = task.status;
      if (parsed.data.status) task.status = parsed.data.status;
      if (parsed.data.title) task.title = parsed.data.title;
      return {
        status: 'Success',
        result: `Task #${task.id} is ${task.status.replace('_', ' ')}.`,
        metadata: { operation: 'update', id: task.id, status_before: before, status_after: task.status },
      };
    }
    return { status: 'Failed', result: `The task list has no tool ${toolName}.` };
  }

  toJSON(): JsonValue {
    return { tasks: this.state.tasks.map((t) => ({ ...t })), nextId: this.state.nextId };
  }
}

function invalid(toolName: string, error: z.ZodError): WidgetToolResult {
  const why = error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
  return { status: 'Failed', result: `Invalid arguments for ${toolName}: ${why}. Fix them and call it again.` };
}

export const taskListKind: WidgetKind = {
  name: 'task_list',
  since: 'task-list-widget',
  tools: new TaskListWidget().tools,
  create(state?: JsonValue) {
    const parsed = TaskListState.safeParse(state);
    return new TaskListWidget(parsed.success ? parsed.data : undefined);
  },
};
