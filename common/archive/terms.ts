/**
 * The words recall matches: lower-cased runs of letters and digits, without the very short and the
 * most common ones. Text in scripts written without spaces (Chinese, Japanese, Korean) is cut into
 * overlapping pairs of characters, so a two-character word is found inside a longer run.
 */

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORDS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|(?:(?![\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])[\p{L}\p{N}])+/gu;
/** Longer runs are ids and encoded data (base64, hashes beyond SHA-256), not words anyone recalls. */
const MAX_TERM_LENGTH = 64;

const COMMON = new Set(
  (
    'the and for are but not you all any can had her was one our out has have this that with from they will would there their ' +
    'what which when where who whom been were into than then them these those some such only also just about your yours its his ' +
    'she him how why did does doing done over under more most very each both other same own too yes let may might must shall ' +
    'should could being because while here after before again once until off nor per via get got use used'
  ).split(' '),
);

/** The distinct terms of a text, in order of first appearance. */
export function termsOf(text: string): string[] {
  const out = new Set<string>();
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(WORDS)) {
    const word = match[0];
    if (CJK.test(word[0])) {
      const chars = [...word];
      for (let i = 0; i + 1 < chars.length; i++) out.add(chars[i] + chars[i + 1]);
      continue;
    }
    if (word.length > MAX_TERM_LENGTH || COMMON.has(word)) continue;
    if (word.length >= 3 || (word.length === 2 && /\p{N}/u.test(word))) out.add(word);
  }
  return [...out];
}

/** Terms of 4 or more characters also match the longer words they begin ("deploy" finds "deployment"). */
export const PREFIX_MIN_LENGTH = 4;
