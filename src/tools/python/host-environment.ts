/**
 * The environment of the Python tool host: crewd's environment (the project's `.env` beneath it) without crewd's
 * own variables. Every `CREWD_*` variable stays behind, the organization token, the webhook secret and the database
 * URL among them: the project's tools are the project's code, not crewd's.
 */
export function hostEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || /^CREWD_/i.test(name)) continue;
    kept[name] = value;
  }
  // Output of the host's own Python is UTF-8 whatever the locale; tools print to stderr, which crewd reads as such.
  kept.PYTHONIOENCODING = 'utf-8';
  return kept;
}
