/**
 * What an empty conversation with the offline demo model offers to try: the demo's own words (the
 * README's table, activities/models/offline-demo-model.ts DEMO_HELP), each a button that puts the
 * words in the message box.
 */
import { el } from './dom.js';

export const DEMO_TRIES = [
  ['remember I like tea', 'the memory notebook is edited (see Notebook)'],
  ['plan buy milk, call mum', 'tasks are added (see Tasks); then try "done 1"'],
  ['delete note 2', 'a call that waits for your approval'],
  ['sleep 20', 'a durable timer: kill the worker meanwhile and restart it, the turn still finishes'],
  ['both', 'a timer and a file write at once'],
];

/** The hint's content; `onTry(text)` gets the words a button stands for. */
export function demoHint(onTry) {
  return [
    el('p', {}, 'This agent runs the offline demo model (not an LLM): it picks real tool calls from words in your message. Try:'),
    el(
      'ul',
      { class: 'tries' },
      DEMO_TRIES.map(([words, what]) =>
        el(
          'li',
          {},
          el('button', { type: 'button', class: 'try', 'data-try': words, onclick: () => onTry(words) }, words),
          el('span', { class: 'what' }, ` ${what}`),
        ),
      ),
    ),
    el('p', { class: 'what' }, 'Any other text is filed as a note in the agent\u2019s workspace.'),
  ];
}
