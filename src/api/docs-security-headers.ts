import { selfOnlyPageHeaders } from './self-only-page-headers.ts';

/**
 * `/docs` (Swagger UI) loads its scripts, styles and the API description from this server alone, with nothing
 * inline. "Try it out" calls this server's API with the token a reader types in, so the page may not be framed and
 * its address is never sent on as a referrer.
 */
export const docsSecurityHeaders = selfOnlyPageHeaders({
  // Swagger UI renders one fixed <style> element of its own; its hash lets that in and nothing else inline.
  styleHashes: ['sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='],
});

/** The documentation UI's routes: its page, the scripts and styles it loads, and the spec copies it serves. */
export function isDocsRoute(routeUrl: string): boolean {
  return routeUrl === '/docs' || routeUrl.startsWith('/docs/');
}
