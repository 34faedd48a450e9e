/**
 * Human feedback enters prompts only inside these markers, never in the system prompt, so it is clearly
 * delimited for the model and can be recognised by the replay model.
 */
export const feedbackSlotStart = '<human_feedback>';
export const feedbackSlotEnd = '</human_feedback>';

/**
 * The feedback inside its slot. Markers written in the feedback itself are defused (`<` becomes `&lt;`), so no
 * feedback can close its slot early and put text of its own outside it.
 */
export function feedbackSlot(text: string): string {
  const defused = text.replace(/<(\s*\/?\s*human_feedback\s*)>/gi, '&lt;$1>');
  return `${feedbackSlotStart}\n${defused}\n${feedbackSlotEnd}`;
}

/** The same text with every feedback slot's content blanked. */
export function withoutFeedback(text: string): string {
  const pattern = new RegExp(`${feedbackSlotStart}[\\s\\S]*?${feedbackSlotEnd}`, 'g');
  return text.replace(pattern, `${feedbackSlotStart}${feedbackSlotEnd}`);
}
