import { describe, expect, it } from 'vitest';
import type { GuardrailCheck } from '../domain/events.ts';
import { eventRecord } from '../service/event-records.ts';
import { eventLine } from './event-line.ts';
import { createRunProgress } from './run-progress.ts';

const check: GuardrailCheck = {
  taskId: 'greet',
  attempt: 1,
  agent: 'Greeter',
  guardrailType: 'function',
  guardrail: 'no_shouting',
  retryCount: 0,
};
const at = new Date('2026-01-02T03:04:05Z');

describe('guardrail checks on the terminal', () => {
  it('prints one serve line per finished check, with the feedback of a failed one', () => {
    const failed = eventRecord.guardrailEnded({
      type: 'guardrail-end',
      check,
      success: false,
      error: 'Quieter',
    });
    const passed = eventRecord.guardrailEnded({ type: 'guardrail-end', check, success: true, error: null });
    const started = eventRecord.guardrailStarted({ type: 'guardrail-start', check });

    expect(eventLine('0123456789', failed, at)).toBe('03:04:05 01234567 greet: guardrail failed: Quieter\n');
    expect(eventLine('0123456789', passed, at)).toBe('03:04:05 01234567 greet: guardrail passed\n');
    expect(eventLine('0123456789', started, at)).toBe('');
  });

  it('shows a failed check under the running task in crewd run', () => {
    let written = '';
    const progress = createRunProgress({ write: (text: string) => (written += text) });

    progress.onEvent({ type: 'guardrail-start', check });
    progress.onEvent({ type: 'guardrail-end', check, success: false, error: 'Quieter' });
    progress.onEvent({ type: 'guardrail-end', check, success: true, error: null });

    expect(written).toBe('  ↳ guardrail failed: Quieter\n');
  });
});
