import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { ServedCrewConfig } from '../config.ts';
import { isFlow } from '../flow/is-flow.ts';
import { flowOutline } from '../service/flow-outline.ts';
import { Notifications } from '../service/notifications.ts';
import type { RunnableUnit } from '../service/runnable-unit.ts';
import type { CrewVersionStore } from '../store/store.ts';
import type { FlowRuntime } from '../flow/open-flow-runtime.ts';
import type { CrewRuntime } from './crew-runtime.ts';
import { CrewVersions, type ServedVersions } from './crew-versions.ts';

export interface ServedUnitOptions {
  readonly store: CrewVersionStore;
  readonly clock: () => Date;
  readonly copiesRoot: string;
  readonly defaultModel: string | undefined;
  readonly newId: () => string;
  /** `--crew`: a project's crew is served, never its flow. */
  readonly crewName: string | undefined;
  /** Opens a crew directory for running (and checks it can run). */
  readonly openCrew: (dir: string) => Promise<CrewRuntime>;
  /** Opens a flow (a file, or a directory holding flow.yaml) for running, with its tools and Python. */
  readonly openFlow: (target: string) => Promise<FlowRuntime>;
  readonly onLoadFailed: (version: number, error: unknown) => void;
}

/**
 * The versions of one served path: a flow (a flow file, a directory holding flow.yaml, a crewAI project declaring
 * one) or a crew. Either is kept as versions of its files the same way; what runs them is told by the unit's kind.
 */
export async function deployServedUnit(
  served: ServedCrewConfig,
  options: ServedUnitOptions,
): Promise<ServedVersions> {
  const common = {
    name: served.name,
    store: options.store,
    clock: options.clock,
    copiesRoot: options.copiesRoot,
    onLoadFailed: options.onLoadFailed,
  };
  if (options.crewName === undefined && (await isFlow(served.dir))) {
    // A flow given as a file is kept with its directory; each version opens the same file name in its copy.
    const file = (await stat(served.dir)).isFile() ? path.basename(served.dir) : undefined;
    return CrewVersions.deploy({
      ...common,
      dir: file === undefined ? served.dir : path.dirname(served.dir),
      open: (dir) => options.openFlow(file === undefined ? dir : path.join(dir, file)),
      runnable: (runtime): RunnableUnit => ({
        kind: 'flow',
        flow: runtime.definition,
        crew: flowOutline(runtime.definition),
        models: runtime.models,
        tools: runtime.tools,
        pythonActions: runtime.pythonActions,
        defaultModel: options.defaultModel,
        notifications: new Notifications(options.newId, runtime.definition.name, 'flow'),
      }),
    });
  }
  return CrewVersions.deploy({
    ...common,
    dir: served.dir,
    open: options.openCrew,
    runnable: (runtime): RunnableUnit => ({
      kind: 'crew',
      crew: runtime.crew,
      models: runtime.models,
      tools: runtime.tools,
      defaultModel: options.defaultModel,
      notifications: new Notifications(options.newId, runtime.crew.name),
    }),
  });
}
