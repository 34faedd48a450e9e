/** What a secret in a shown webhook URL is replaced with. */
export const redactedMark = 'REDACTED';

// Query parameters that carry secrets by name: token, access_token, api_key, key, signature, sig, X-Amz-Credential…
const secretParameter = /token|key|secret|sig|pass|pwd|auth|credential|session/i;
// Path segments that read as tokens rather than words: Slack's and Discord's webhook secrets, UUIDs, hex digests.
const longSegment = 24;
const longSegmentWithDigit = 16;

/**
 * A webhook URL as responses show it, without the secrets it may carry: the user name and password are dropped,
 * the value of a query parameter whose name contains `token`, `key`, `secret`, `sig`, `pass`, `pwd`, `auth`,
 * `credential` or `session` (any case), and every path segment of 24 characters or more, or of 16 or more with a
 * digit, is replaced with `REDACTED`. A URL with none of these comes back exactly as given.
 */
export function withoutCredentials(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  let changed = parsed.username !== '' || parsed.password !== '';
  parsed.username = '';
  parsed.password = '';
  const path = parsed.pathname
    .split('/')
    .map((segment) => (looksLikeToken(decoded(segment)) ? redactedMark : segment))
    .join('/');
  if (path !== parsed.pathname) {
    changed = true;
    parsed.pathname = path;
  }
  const query = parsed.search
    .slice(1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0 || equals === pair.length - 1) return pair;
      const name = pair.slice(0, equals);
      return secretParameter.test(decoded(name.replaceAll('+', ' '))) ? `${name}=${redactedMark}` : pair;
    })
    .join('&');
  if (parsed.search !== '' && query !== parsed.search.slice(1)) {
    changed = true;
    parsed.search = query;
  }
  return changed ? parsed.href : url;
}

function looksLikeToken(segment: string): boolean {
  return segment.length >= longSegment || (segment.length >= longSegmentWithDigit && /\d/.test(segment));
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
