import type { EngineEvent } from '../domain/events.ts';

/** Where progress goes: a stream, and whether it is a terminal that can redraw a line. */
export interface ProgressOutput {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export interface RunProgress {
  readonly onEvent: (event: EngineEvent) => void;
  /** Clears the spinner line, so something else can be written. */
  stop(): void;
}

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const frameMs = 80;
const clearLine = '\r\x1b[2K';

/**
 * Shows what the engine is doing: on a terminal, a spinner line for the running task that becomes a ✓ line when
 * it ends; elsewhere (logs, pipes, tests), one plain line per event.
 */
export function createRunProgress(output: ProgressOutput): RunProgress {
  const interactive = output.isTTY === true;
  let spinner: { label: string; frame: number; startedAt: number; timer: NodeJS.Timeout } | undefined;

  const draw = (): void => {
    if (spinner === undefined) return;
    const seconds = Math.floor((Date.now() - spinner.startedAt) / 1000);
    output.write(`${clearLine}${frames[spinner.frame % frames.length]} ${spinner.label} ${seconds}s`);
  };
  const stopSpinner = (): void => {
    if (spinner === undefined) return;
    clearInterval(spinner.timer);
    spinner = undefined;
    output.write(clearLine);
  };
  /** Writes a whole line above the spinner, which then carries on below it. */
  const line = (text: string): void => {
    if (spinner === undefined) {
      output.write(`${text}\n`);
      return;
    }
    output.write(`${clearLine}${text}\n`);
    draw();
  };

  /** The role of the agent leading the running task: other agents' steps are a delegation's and say who made them. */
  let lead = '';
  const onEvent = (event: EngineEvent): void => {
    switch (event.type) {
      case 'task-start': {
        lead = event.agent;
        const attempt = event.attempt > 1 ? `, attempt ${event.attempt}` : '';
        const label = `${event.taskId} (${event.agent.trim()}${attempt})`;
        if (!interactive) {
          line(`▶ ${label}`);
          return;
        }
        stopSpinner();
        const timer = setInterval(() => {
          if (spinner === undefined) return;
          spinner.frame += 1;
          draw();
        }, frameMs);
        // The spinner must never keep the process alive on its own.
        timer.unref();
        spinner = { label, frame: 0, startedAt: Date.now(), timer };
        draw();
        return;
      }
      case 'step-end': {
        const { agent, tool, toolInput } = event.step;
        const by = agent === lead ? '' : `${agent.trim()}: `;
        if (tool !== null) line(`  ↳ ${by}${tool} ${brief(toolInput)}`);
        else if (by !== '') line(`  ↳ ${agent.trim()} answered`);
        return;
      }
      case 'model-call-end':
      case 'guardrail-start':
        return;
      case 'guardrail-end':
        if (!event.success) line(`  ↳ guardrail failed: ${event.error ?? ''}`);
        return;
      case 'task-end': {
        stopSpinner();
        const tokens = `${event.output.usage.totalTokens} tokens`;
        const waiting = event.awaitingHumanInput ? ', waiting for review' : '';
        line(`✓ ${event.output.taskId} — ${tokens}${waiting}`);
        return;
      }
    }
  };

  return { onEvent, stop: stopSpinner };
}

/** A tool input on one short line. */
function brief(input: unknown): string {
  const text = (JSON.stringify(input) ?? '').replace(/\s+/g, ' ');
  return text.length > 100 ? `${text.slice(0, 99)}…` : text;
}
