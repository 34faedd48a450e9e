import { describe, expect, it } from 'vitest';
import { CrewdError } from '../domain/errors.ts';
import { createStructuredOutputChecker } from './structured-output.ts';

const check = createStructuredOutputChecker('review', {
  type: 'object',
  properties: { score: { type: 'integer', minimum: 0 }, email: { type: 'string', format: 'email' } },
  required: ['score'],
});

describe('structured output checker', () => {
  it('accepts a bare JSON object and one inside a ```json fence with text around it', () => {
    expect(check('{"score": 3}')).toEqual({ valid: true, value: { score: 3 } });
    expect(check('Here it is:\n```json\n{"score": 4}\n```\nDone.')).toEqual({
      valid: true,
      value: { score: 4 },
    });
    expect(check('```\n{"score": 5}\n```')).toEqual({ valid: true, value: { score: 5 } });
  });

  it('ignores formats it does not know instead of failing', () => {
    expect(check('{"score": 1, "email": "not an address"}')).toMatchObject({ valid: true });
  });

  it('says what is wrong with an answer that does not match', () => {
    expect(check('no json here')).toEqual({ valid: false, problem: 'the answer is not valid JSON' });
    expect(check('[1, 2]')).toEqual({ valid: false, problem: 'the answer must be a JSON object' });
    expect(check('{"score": -1}')).toEqual({ valid: false, problem: 'answer/score must be >= 0' });
  });

  it('rejects a schema that cannot be compiled, naming the task', () => {
    expect(() => createStructuredOutputChecker('review', { type: 'no-such-type' })).toThrow(CrewdError);
    expect(() => createStructuredOutputChecker('review', { type: 'no-such-type' })).toThrow(
      /output_json schema of task 'review'/,
    );
  });
});
