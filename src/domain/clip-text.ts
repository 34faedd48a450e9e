/**
 * The longest copy of a text that crewd repeats beside the text itself: a step's prompt and thought, a task's
 * description and expected output as its outputs carry them, and the last step and task in `/status`. The texts
 * themselves (inputs, answers, tool results) are kept whole within their own limits; only the copies are clipped,
 * so one large input or answer is not multiplied by every step and status that mentions it.
 */
export const clippedTextChars = 4096;

/**
 * `text`, or its first `maxChars` characters and a note of how many more there were. A cut never splits a
 * surrogate pair.
 */
export function clipText(text: string, maxChars = clippedTextChars): string {
  if (text.length <= maxChars) return text;
  const code = text.charCodeAt(maxChars - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? maxChars - 1 : maxChars;
  return `${text.slice(0, end)}… [clipped: ${text.length - end} more characters]`;
}
