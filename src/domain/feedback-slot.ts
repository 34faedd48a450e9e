/**
 * Human feedback enters prompts only inside these markers, never in the system prompt, so it is clearly
 * delimited for the model and can be recognised by the replay model.
 */
export const feedbackSlotStart = '<human_feedback>';
export const feedbackSlotEnd = '</human_feedback>';

export function feedbackSlot(text: string): string {
  return `${feedbackSlotStart}\n${text}\n${feedbackSlotEnd}`;
}

/** The same text with every feedback slot's content blanked. */
export function withoutFeedback(text: string): string {
  const pattern = new RegExp(`${feedbackSlotStart}[\\s\\S]*?${feedbackSlotEnd}`, 'g');
  return text.replace(pattern, `${feedbackSlotStart}${feedbackSlotEnd}`);
}
