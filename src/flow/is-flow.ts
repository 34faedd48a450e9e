import { FlowDefinitionError } from './flow-errors.ts';
import { findFlowFile, readFlowSource } from './read-flow-source.ts';

// Apart from load-flow.ts, so telling a flow from a crew does not load the flow compiler (and CEL with it).

/** Whether `target` holds a flow (a `schema: crewai.flow/v1` document) rather than a crew. */
export async function isFlow(target: string): Promise<boolean> {
  try {
    const file = await findFlowFile(target);
    if (file === undefined) return false;
    const source = await readFlowSource(file);
    return (
      source.data.schema === 'crewai.flow/v1' ||
      (typeof source.data.methods === 'object' && source.data.methods !== null)
    );
  } catch (error) {
    // A file named as a flow that cannot be read is still a flow: the caller reports it when it loads it.
    return error instanceof FlowDefinitionError;
  }
}
