/**
 * Human feedback enters prompts only inside these markers, never in the system prompt, so it is clearly
 * delimited for the model and can be recognised by the replay model.
 */
export const feedbackSlotStart = '<human_feedback>';
export const feedbackSlotEnd = '</human_feedback>';

/**
 * The feedback inside its slot. Markers written in the feedback itself are defused, so no feedback can close its
 * slot early and put text of its own outside it.
 */
export function feedbackSlot(text: string): string {
  return `${feedbackSlotStart}\n${defuseSlotMarkers(text)}\n${feedbackSlotEnd}`;
}

/** The same text with every feedback slot's content blanked. */
export function withoutFeedback(text: string): string {
  const pattern = new RegExp(`${feedbackSlotStart}[\\s\\S]*?${feedbackSlotEnd}`, 'g');
  return text.replace(pattern, `${feedbackSlotStart}${feedbackSlotEnd}`);
}

/**
 * Untrusted text (kickoff inputs, task outputs, tool results, feedback) made safe to place in a prompt: anything a
 * model could read as opening or closing a feedback slot has its `<` written as `&lt;`. What counts is what the text
 * looks like, not its exact characters: look-alike brackets, slashes and letters (full-width, small, Cyrillic),
 * invisible characters, combining marks, any case, spaces, `-` or none for the `_`, attributes and self-closing
 * forms (`</human_feedback/>`, `</human_feedback x="1">`). Text that is not such a marker is left as it was.
 */
export function defuseSlotMarkers(text: string): string {
  let result = '';
  let copiedUpTo = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (!openingBrackets.has(char) || !startsSlotMarker(text, index)) continue;
    result += `${text.slice(copiedUpTo, index)}&lt;`;
    copiedUpTo = index + 1;
  }
  return copiedUpTo === 0 ? text : result + text.slice(copiedUpTo);
}

/** Characters a model may read as `<`: those NFKC turns into it, and angle brackets that look like it. */
const openingBrackets = new Set([
  '<',
  '\uFF1C',
  '\uFE64',
  '\u2039',
  '\u2329',
  '\u3008',
  '\u27E8',
  '\u276E',
  '\u02C2',
  '\u1438',
]);

/** Letters of other scripts that look like those of the marker's name, as NFKC leaves them. */
const lookAlikes: Readonly<Record<string, string>> = {
  а: 'a', // Cyrillic
  е: 'e',
  с: 'c',
  һ: 'h',
  ԁ: 'd',
  к: 'k',
  ս: 'u', // Armenian
  ո: 'n',
  ƅ: 'b',
  ь: 'b',
  υ: 'u', // Greek
  κ: 'k',
  ε: 'e',
  η: 'n',
  '\u2044': '/', // fraction slash
  '\u2215': '/', // division slash
  '\u29F8': '/',
};

const invisible = /^[\p{Default_Ignorable_Code_Point}\p{M}]$/u;
const marker = /^<\s*\/?\s*human[\s_-]*feedback(?![a-z0-9])/;
/** Longer than any spacing a model would still read as one marker. */
const skeletonLength = 48;

/** Whether the text from `start` (a bracket) reads as a slot marker once look-alikes and invisibles are set aside. */
function startsSlotMarker(text: string, start: number): boolean {
  let skeleton = '<';
  let index = start + 1;
  while (index < text.length && skeleton.length < skeletonLength) {
    const char = String.fromCodePoint(text.codePointAt(index)!);
    index += char.length;
    if (invisible.test(char)) continue;
    const plain = (lookAlikes[char] ?? char.normalize('NFKC')).toLowerCase();
    skeleton += lookAlikes[plain] ?? plain;
  }
  return marker.test(skeleton);
}
