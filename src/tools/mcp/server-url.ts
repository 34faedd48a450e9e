import { CrewdError } from '../../domain/errors.ts';

/** A server's URL from its config, or a configuration error naming the server. */
export function parseServerUrl(url: string, owner: string): URL {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new CrewdError('CONFIG_INVALID', `${owner}: '${displayName(url)}' is not an http(s) URL`);
  }
  return parsed;
}

/** A URL as an operator may see it: no credentials, no query string. */
export function displayName(name: string): string {
  if (!/^https?:\/\//i.test(name)) return name;
  try {
    const url = new URL(name);
    return `${url.origin}${url.pathname}`;
  } catch {
    return name;
  }
}
