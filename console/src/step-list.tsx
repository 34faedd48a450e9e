import type { StepPayload } from './api-types.ts';
import { JsonTree } from './json-tree.tsx';

/** An agent's steps in one task: its thoughts, each tool call with input and result, and its final answer. */
export function StepList({ steps }: { steps: readonly StepPayload[] }) {
  if (steps.length === 0) return null;
  return (
    <ol class="steps" aria-label="Steps">
      {steps.map((step, index) => (
        <li key={index} class="step">
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
                Tool call: <code>{step.tool}</code>
              </summary>
              <h5>Input</h5>
              <JsonTree value={step.tool_input} />
              <h5>Result</h5>
              <pre>{step.result}</pre>
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}
