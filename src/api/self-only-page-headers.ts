/**
 * The headers of a page this server serves together with everything it loads: scripts, styles and API calls from
 * this origin alone, nothing inline but what `styleHashes` let in. Such a page works with a bearer token, so it may
 * not be framed and its address is never sent on as a referrer.
 */
export function selfOnlyPageHeaders(
  options: { readonly styleHashes?: readonly string[]; readonly manifest?: boolean } = {},
): Readonly<Record<string, string>> {
  const styles = (options.styleHashes ?? []).map((hash) => ` '${hash}'`).join('');
  return {
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      `style-src 'self'${styles}`,
      "img-src 'self' data:",
      "connect-src 'self'",
      ...(options.manifest === true ? ["manifest-src 'self'"] : []),
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  };
}
