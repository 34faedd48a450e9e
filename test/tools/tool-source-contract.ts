import { afterEach, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../src/engine/tool.ts';
import type { ToolSource } from '../../src/tools/tool-source.ts';

/** A source under test, unopened, with one call of one of its tools and the text that call returns. */
export interface ToolSourceCase {
  readonly source: ToolSource;
  readonly sample: {
    /** The name crews use for the tool. */
    readonly tool: string;
    readonly input: Readonly<Record<string, unknown>>;
    /** The text the model sees for that input. */
    readonly result: string;
  };
  /** A name the source does not provide. */
  readonly missingTool: string;
  /** Stops whatever the case started besides the source (a server). */
  readonly cleanup?: () => Promise<void>;
}

const context: ToolContext = {
  toolCallId: 'call-1',
  executionId: 'exec-1',
  taskId: 'task',
  agent: 'agent',
  abortSignal: new AbortController().signal,
};

/** What every ToolSource adapter promises the registry and the engine, run once per adapter. */
export function runToolSourceContract(adapter: string, createCase: () => Promise<ToolSourceCase>): void {
  describe(`${adapter} as a tool source`, () => {
    const opened: ToolSourceCase[] = [];

    async function open(): Promise<ToolSourceCase> {
      const sourceCase = await createCase();
      opened.push(sourceCase);
      await sourceCase.source.open();
      return sourceCase;
    }

    afterEach(async () => {
      for (const { source, cleanup } of opened.splice(0)) {
        await source.close();
        await cleanup?.();
      }
    });

    it('opens and reports itself up, with a label', async () => {
      const { source } = await open();
      const status = source.status();
      expect(status.up).toBe(true);
      expect(status.reason).toBeUndefined();
      expect(status.label).not.toBe('');
    });

    it('finds its tool by the name crews use, lists it, and gives an object input schema', async () => {
      const { source, sample } = await open();
      const tool = source.find(sample.tool);
      expect(tool?.name).toBe(sample.tool);
      expect(tool?.description).not.toBe('');
      expect(tool?.inputSchema).toMatchObject({ type: 'object' });
      expect(source.names()).toContain(sample.tool);
    });

    it('runs the tool with a call context and returns the text the model sees', async () => {
      const { source, sample } = await open();
      await expect(source.find(sample.tool)!.run(sample.input, context)).resolves.toBe(sample.result);
    });

    it('finds nothing for a name it does not provide', async () => {
      const { source, missingTool } = await open();
      expect(source.find(missingTool)).toBeUndefined();
      expect(source.names()).not.toContain(missingTool);
    });

    it('closes, and a second close is harmless', async () => {
      const { source } = await open();
      await source.close();
      await expect(source.close()).resolves.toBeUndefined();
    });
  });
}
