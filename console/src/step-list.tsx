import type { StepPayload } from './api-types.ts';
import { JsonTree } from './json-tree.tsx';

/** The tools through which an agent hands work to a coworker (a hierarchical crew's manager, or allow_delegation). */
const delegationVerbs: Readonly<Record<string, string>> = {
  'Delegate work to coworker': 'Delegated work to',
  'Ask question to coworker': 'Asked a question to',
};

/**
 * The agents' steps in one task: who made each one, its thoughts, each tool call with input and result, and its
 * final answer. A delegation is marked as such and names the coworker, whose own steps follow under its name.
 */
export function StepList({ steps }: { steps: readonly StepPayload[] }) {
  if (steps.length === 0) return null;
  return (
    <ol class="steps" aria-label="Steps">
      {steps.map((step, index) => {
        const verb = step.tool === null ? undefined : delegationVerbs[step.tool];
        return (
          <li key={index} class={verb === undefined ? 'step' : 'step delegation'}>
            <span class="step-agent">{step.agent}</span>
            {/* A final answer's thought is the answer itself, shown as the task's output below. */}
            {step.thought.trim() === '' ||
            (step.tool === null && step.thought.trim() === step.result.trim()) ? null : (
              <p class="thought">{step.thought}</p>
            )}
            {step.tool === null ? (
              <p class="muted">Final answer given.</p>
            ) : (
              <details>
                <summary>
                  {verb === undefined ? (
                    <>
                      Tool call: <code>{step.tool}</code>
                    </>
                  ) : (
                    <>
                      {verb} <strong>{coworkerOf(step.tool_input)}</strong>
                    </>
                  )}
                </summary>
                <h5>Input</h5>
                <JsonTree value={step.tool_input} />
                <h5>{verb === undefined ? 'Result' : 'Answer'}</h5>
                <pre>{step.result}</pre>
              </details>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function coworkerOf(input: unknown): string {
  const coworker = (input as { coworker?: unknown } | null)?.coworker;
  return typeof coworker === 'string' && coworker.trim() !== '' ? coworker : 'a coworker';
}
