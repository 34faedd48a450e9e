import { withProjectEnv } from '../crew/project-env.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** What one served crew's models and tools see of the environment. */
export interface CrewEnvironment {
  /** The real environment with the crew's own `.env` beneath it. */
  readonly env: Env;
  /** The model of its agents without `llm`: `MODEL` as the crew sees it. */
  readonly defaultModel: string | undefined;
}

/**
 * A served crew's environment, each crew with its own project `.env` as crewAI's `load_dotenv()` would give it when
 * run alone: several crews in one server never see each other's keys or settings. `crewEnv` is the environment
 * without any project's `.env`; without it, the server's `env` is used as it is, and its model
 * (`serverDefaultModel`) is the default for crews whose `.env` names none.
 */
export async function crewEnvironment(
  crewDir: string,
  environments: { readonly env: Env; readonly crewEnv?: Env },
  serverDefaultModel: string | undefined,
): Promise<CrewEnvironment> {
  const env = await withProjectEnv(crewDir, environments.crewEnv ?? environments.env);
  const model = env.MODEL?.trim();
  if (model !== undefined && model !== '') return { env, defaultModel: model };
  return { env, defaultModel: environments.crewEnv === undefined ? serverDefaultModel : undefined };
}
