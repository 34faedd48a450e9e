import { CrewdError } from '../domain/errors.ts';

/** The environment model settings are read from, never the process directly. */
export type ModelEnv = Readonly<Record<string, string | undefined>>;

/** The first of `names` that is set; empty counts as unset. */
export function setting(env: ModelEnv, ...names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/** The first of `names` that is set, which must be an absolute http(s) URL. */
export function baseUrlSetting(env: ModelEnv, ...names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = setting(env, name);
    if (value === undefined) continue;
    if (!isHttpUrl(value)) {
      throw new CrewdError(
        'CONFIG_INVALID',
        `${name} must be an absolute http(s) URL, e.g. http://localhost:11434/v1`,
      );
    }
    return value;
  }
  return undefined;
}

export function isHttpUrl(value: string): boolean {
  return /^https?:\/\/[^/]/i.test(value) && URL.canParse(value);
}

/** `base` without trailing slashes, so paths can be appended to it. */
export function trimSlashes(base: string): string {
  return base.replace(/\/+$/, '');
}
