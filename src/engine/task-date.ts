import type { AgentDefinition, TaskDefinition } from '../domain/crew.ts';

/** crewAI's default `date_format`. */
const defaultDateFormat = '%Y-%m-%d';

const monthNames = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const dayNames = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * The task with today's date added to its description when the agent has `inject_date` (crewAI adds a
 * "Current Date" line in the agent's `date_format`); unchanged otherwise.
 */
export function withCurrentDate(task: TaskDefinition, agent: AgentDefinition, now: Date): TaskDefinition {
  if (agent.injectDate !== true) return task;
  const date = formatDate(now, agent.dateFormat ?? defaultDateFormat);
  return { ...task, description: `${task.description}\n\nCurrent Date: ${date}` };
}

/** `date` (local time) in a Python strftime `format`; codes it does not know are left as written. */
export function formatDate(date: Date, format: string): string {
  const two = (value: number): string => String(value).padStart(2, '0');
  const codes: Record<string, () => string> = {
    Y: () => String(date.getFullYear()),
    y: () => two(date.getFullYear() % 100),
    m: () => two(date.getMonth() + 1),
    d: () => two(date.getDate()),
    e: () => String(date.getDate()).padStart(2, ' '),
    H: () => two(date.getHours()),
    I: () => two(date.getHours() % 12 || 12),
    M: () => two(date.getMinutes()),
    S: () => two(date.getSeconds()),
    p: () => (date.getHours() < 12 ? 'AM' : 'PM'),
    B: () => monthNames[date.getMonth()] ?? '',
    b: () => (monthNames[date.getMonth()] ?? '').slice(0, 3),
    A: () => dayNames[date.getDay()] ?? '',
    a: () => (dayNames[date.getDay()] ?? '').slice(0, 3),
    j: () => String(dayOfYear(date)).padStart(3, '0'),
    '%': () => '%',
  };
  return format.replace(/%(.)/g, (code, letter: string) => codes[letter]?.() ?? code);
}

function dayOfYear(date: Date): number {
  const start = new Date(date.getFullYear(), 0, 1);
  const today = new Date(date.getFullYear(), date.getMonth(), date.getDate());
  return Math.round((today.getTime() - start.getTime()) / 86_400_000) + 1;
}
