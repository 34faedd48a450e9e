import { defineGuardrail } from 'crewd/tools';

/** Fails an answer written in capitals, and passes the others with their ending trimmed. */
export const noShouting = defineGuardrail({
  name: 'no_shouting',
  check: ({ raw }) =>
    raw === raw.toUpperCase() ? [false, 'Do not shout: write in lower case'] : [true, raw.trimEnd()],
});
