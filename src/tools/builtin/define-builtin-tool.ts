import { z } from 'zod';
import type { JsonSchema } from '../../domain/crew.ts';
import { canonicalJson } from '../../domain/canonical-json.ts';
import { CrewdError } from '../../domain/errors.ts';
import type { Tool, ToolContext } from '../../engine/tool.ts';
import type { BuiltinToolOptions } from './builtin-tool-options.ts';
import { ToolFailure } from './tool-failure.ts';

type Shape = z.ZodRawShape;

/** One built-in tool as written: crewAI's name, its arguments and constructor settings, and what it does. */
export interface BuiltinToolSpec<Args extends Shape, Settings extends Shape> {
  readonly name: string;
  /** The arguments the model passes, named as crewAI names them; a preset fixes one and hides it from the model. */
  readonly args: z.ZodObject<Args>;
  /** crewAI's constructor arguments that the model never passes (`n_results`, `cookies`), settable only as presets. */
  readonly settings: z.ZodObject<Settings>;
  /** The description the model reads, which names the preset arguments the way crewAI's does. */
  describe(presets: Readonly<Record<string, unknown>>): string;
  run(
    args: z.output<z.ZodObject<Args>>,
    settings: z.output<z.ZodObject<Settings>>,
    context: ToolContext,
    options: BuiltinToolOptions,
  ): Promise<string>;
}

/** Makes instances of one built-in tool, with or without preset arguments. */
export interface BuiltinToolFactory {
  readonly name: string;
  /**
   * A tool bound to `options`. `presets` are what crewAI takes in the constructor (`ScrapeWebsiteTool(website_url=…)`,
   * `SerperDevTool(n_results=5)`): preset arguments leave the model's schema. Throws a `CREW_INVALID` error naming
   * the tool and the argument for a preset the tool does not take or a value it does not accept.
   */
  create(options: BuiltinToolOptions, presets?: Readonly<Record<string, unknown>>): Tool;
}

export function defineBuiltinTool<Args extends Shape, Settings extends Shape>(
  spec: BuiltinToolSpec<Args, Settings>,
): BuiltinToolFactory {
  // The model's schema depends only on which arguments are preset: made once per process for each such set, and
  // shared by every crew's instances (built for each crew, it took longer than the rest of loading the crew).
  const schemas = new Map<string, JsonSchema>();
  const schemaWithout = (preset: readonly string[]): JsonSchema => {
    const key = [...preset].sort().join('\n');
    let schema = schemas.get(key);
    if (schema === undefined) {
      const omitted = Object.fromEntries(preset.map((name) => [name, true] as const));
      schema = modelSchema(spec.args.omit(omitted as never));
      schemas.set(key, schema);
    }
    return schema;
  };
  return {
    name: spec.name,
    create(options, presets = {}) {
      const argPresets: Record<string, unknown> = {};
      const settingPresets: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(presets)) {
        const target = Object.hasOwn(spec.args.shape, key)
          ? argPresets
          : Object.hasOwn(spec.settings.shape, key)
            ? settingPresets
            : undefined;
        if (target === undefined) {
          const known = [...Object.keys(spec.args.shape), ...Object.keys(spec.settings.shape)];
          throw new CrewdError(
            'CREW_INVALID',
            `${spec.name} has no argument '${key}'; it takes ${known.map((name) => `'${name}'`).join(', ')}`,
          );
        }
        target[key] = value;
      }
      for (const [key, value] of Object.entries(argPresets))
        presetValue(spec.name, key, spec.args.shape[key], value);
      const settingsResult = spec.settings.safeParse(settingPresets);
      if (!settingsResult.success) {
        throw new CrewdError('CREW_INVALID', `${spec.name}: ${z.prettifyError(settingsResult.error)}`);
      }
      const settings = settingsResult.data;
      return {
        name: spec.name,
        ...(Object.keys(presets).length === 0 ? {} : { cacheKey: `${spec.name}(${canonicalJson(presets)})` }),
        description: spec.describe(argPresets),
        inputSchema: schemaWithout(Object.keys(argPresets)),
        async run(input: unknown, context: ToolContext): Promise<string> {
          const given = typeof input === 'object' && input !== null ? input : {};
          const parsed = spec.args.safeParse({ ...given, ...argPresets });
          if (!parsed.success) throw new ToolFailure(`invalid input: ${z.prettifyError(parsed.error)}`);
          try {
            return await spec.run(parsed.data, settings, context, options);
          } catch (error) {
            if (error instanceof ToolFailure || context.abortSignal.aborted) throw error;
            throw new ToolFailure(`${spec.name} failed: ${systemErrorText(error)}`);
          }
        },
      };
    },
  };
}

function presetValue(tool: string, key: string, schema: z.core.$ZodType | undefined, value: unknown): void {
  const result = schema === undefined ? undefined : z.safeParse(schema, value);
  if (result !== undefined && !result.success) {
    throw new CrewdError(
      'CREW_INVALID',
      `${tool}: '${key}' ${result.error.issues[0]?.message ?? 'is not valid'}`,
    );
  }
}

/** The JSON Schema the model sees, in the draft every provider and the engine's validator accept. */
function modelSchema(args: z.ZodObject): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(args, { target: 'draft-7', io: 'input' });
  return schema;
}

const systemErrors: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'the path is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EEXIST: 'the file already exists',
  ENOSPC: 'no space left on the device',
  EMFILE: 'too many open files',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the path is too long',
};

/** Names a system error by its code only: Node's messages carry absolute paths. */
function systemErrorText(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return (typeof code === 'string' ? systemErrors[code] : undefined) ?? 'an unexpected error occurred';
}
