import path from 'node:path';
import { CrewLoadError } from '../../domain/errors.ts';
import { decoratorName, definitionOf } from './python-module.ts';
import type { Definition, PackageModules, PythonModule } from './python-module.ts';
import { lineOf, namedChildren } from './python-parser.ts';

/** The crew class a crew.py is read from, and what the reader should tell about the choice. */
export interface ChosenCrewClass {
  readonly name: string;
  readonly definition: Definition;
  /** Set when the file holds several crews: which were there and why this one was read. */
  readonly note?: string;
}

/**
 * The crew classes of a module: `@CrewBase` classes, or failing those, classes with `@agent` methods (a CrewBase
 * imported under another name), in file order.
 */
export function crewClassesIn(module: PythonModule): [string, Definition][] {
  const classes = [...module.classes.entries()];
  const based = classes.filter(([, definition]) =>
    definition.decorators.some((decorator) => decoratorName(decorator) === 'CrewBase'),
  );
  if (based.length > 0) return based;
  return classes.filter(([, definition]) => hasAgentMethod(definition)).slice(0, 1);
}

/**
 * Picks the crew class to read: the one `--crew` names; the only one; or, of several, the one the package's
 * main.py runs (`Name().crew()`), which is what `crewai run` runs. Otherwise refuses, listing them.
 */
export async function chooseCrewClass(
  module: PythonModule,
  modules: PackageModules,
  wanted: string | undefined,
): Promise<ChosenCrewClass | undefined> {
  const classes = crewClassesIn(module);
  const names = classes.map(([name]) => name);
  const list = names.join(', ');
  if (wanted !== undefined) {
    const found = classes.find(([name]) => name === wanted);
    if (found === undefined) {
      const known = names.length === 0 ? 'it defines no crew class' : `its crews are ${list}`;
      throw new CrewLoadError(module.file, `holds no crew named "${wanted}"; ${known}`);
    }
    return {
      name: wanted,
      definition: found[1],
      ...(classes.length > 1
        ? { note: `${module.file} holds the crews ${list}; --crew chose ${wanted}` }
        : {}),
    };
  }
  const [first, second] = classes;
  if (first === undefined) return undefined;
  if (second === undefined) return { name: first[0], definition: first[1] };

  const run = await classMainRuns(module, modules, names);
  const chosen = classes.find(([name]) => name === run);
  if (chosen !== undefined) {
    return {
      name: chosen[0],
      definition: chosen[1],
      note:
        `${module.file} holds the crews ${list}; this is ${chosen[0]}, the one main.py runs ` +
        '(choose another with --crew <ClassName>)',
    };
  }
  throw new CrewLoadError(module.file, `holds several crews (${list}); choose one with --crew <ClassName>`, {
    line: lineOf(second[1].node),
  });
}

/** The one crew class main.py beside crew.py builds and runs (`Name().crew()`), in `run()` if it has one. */
async function classMainRuns(
  module: PythonModule,
  modules: PackageModules,
  names: readonly string[],
): Promise<string | undefined> {
  const main = await modules.read(path.join(path.dirname(module.absolutePath), 'main.py'));
  if (main === undefined) return undefined;
  const run = main.functions.get('run');
  for (const scope of [run?.node, main.root]) {
    if (scope === undefined) continue;
    const started = new Set<string>();
    for (const match of scope.text.matchAll(/\b([A-Za-z_]\w*)\(\s*\)\s*\.crew\(/g)) {
      const name = match[1];
      if (name !== undefined && names.includes(name)) started.add(name);
    }
    if (started.size === 1) return [...started][0];
    if (started.size > 1) return undefined;
  }
  return undefined;
}

function hasAgentMethod(definition: Definition): boolean {
  const body = definition.node.childForFieldName('body');
  return (body === null ? [] : namedChildren(body)).some((statement) =>
    (definitionOf(statement)?.decorators ?? []).some((decorator) => decoratorName(decorator) === 'agent'),
  );
}
