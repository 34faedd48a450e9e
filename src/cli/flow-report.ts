import type { FlowDefinition, FlowMethodDefinition } from '../flow/flow-definition.ts';
import type { FlowCondition } from '../flow/flow-schema.ts';
import { flowInputs, stateModel } from '../flow/flow-state.ts';
import { sourceName } from '../tools/tool-source.ts';
import type { ToolSourceStatus } from '../tools/tool-source.ts';

/** `crewd check` for a flow: its methods, what triggers each, its inputs, and what crewd does not honour. */
export function flowReport(
  definition: FlowDefinition,
  warnings: readonly string[],
  opened: { readonly python?: string | undefined; readonly tools?: readonly ToolSourceStatus[] } = {},
): string {
  const lines = [`Flow ${definition.name} (${definition.file})`];
  if (definition.description !== undefined) lines.push(definition.description);
  lines.push('', 'Methods:');
  const width = Math.max(0, ...[...definition.methods.keys()].map((name) => name.length));
  for (const method of definition.methods.values())
    lines.push(`  ${method.name.padEnd(width)}  ${describeMethod(method)}`);
  if (definition.methods.size === 0) lines.push('  (none: the flow runs nothing)');
  const model = stateModel(definition);
  const inputs = flowInputs(definition);
  lines.push(
    '',
    model.kind === 'schema'
      ? `Inputs (state fields): ${inputs.join(', ') || 'none'}`
      : `Inputs: any (dict state${inputs.length > 0 ? `, defaults for ${inputs.join(', ')}` : ''})`,
  );
  const listed = (opened.tools ?? []).filter((status) => status.listing !== undefined);
  for (const status of listed)
    lines.push('', `${sourceName(status)}:`, ...(status.listing ?? []).map((line) => `  ${line}`));
  if (opened.python !== undefined) lines.push('', `Python actions run by ${opened.python}`);
  if (warnings.length > 0) lines.push('', 'Warnings:', ...warnings.map((warning) => `  ${warning}`));
  if (definition.unhonoured.length > 0)
    lines.push('', 'Not honoured:', ...definition.unhonoured.map((item) => `  ${item}`));
  return `${lines.join('\n')}\n`;
}

function describeMethod(method: FlowMethodDefinition): string {
  const trigger =
    method.start === true
      ? 'start'
      : method.start !== undefined
        ? `start on ${condition(method.start)}`
        : method.listen !== undefined
          ? `listen: ${condition(method.listen)}`
          : 'never runs (no start, no listen)';
  const parts = [
    trigger,
    method.action.call === 'each'
      ? `each (${method.action.steps.map((step) => step.action.call).join(', ')})`
      : method.action.call,
  ];
  if (method.humanFeedback !== undefined) {
    parts.push(
      `human feedback${method.humanFeedback.emit === undefined ? '' : ` → ${method.humanFeedback.emit.join(', ')}`}`,
    );
  } else if (method.router) {
    parts.push(`router${method.emit === undefined ? '' : ` → ${method.emit.join(', ')}`}`);
  }
  return parts.join(', ');
}

function condition(value: FlowCondition): string {
  if (typeof value === 'string') return value;
  if (value.and !== undefined) return `(${value.and.map(condition).join(' and ')})`;
  return `(${(value.or ?? []).map(condition).join(' or ')})`;
}
