import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crewFileRefusal } from './crew-read-rule.ts';

describe('crewFileRefusal', () => {
  it.each([
    'README.md',
    'knowledge/user_preference.txt',
    'notes/budget.txt',
    'data/prices.json',
    'pyproject.toml',
    'research-crew.replay.json',
    'docs/keyboard-shortcuts.md',
    '.',
  ])("reads the crew's data and documents: %s", (path) => {
    expect(crewFileRefusal(join(...path.split('/')))).toBeUndefined();
  });

  it.each([
    ['.crewd', "crewd's own data"],
    ['.Crewd/workspace/kickoff-1/report.md', "crewd's own data"],
    ['notes/.crewd/dev-token', "crewd's own data"],
    ['.env', 'environment file'],
    ['config/.env.local', 'environment file'],
    ['.EnvRc', 'environment file'],
    ['.git/config', 'hidden'],
    ['.ssh/known_hosts', 'hidden'],
    ['.npmrc', 'hidden'],
    ['certs/server.PEM', 'key or credentials'],
    ['id_rsa.pub', 'key or credentials'],
    ['gcp-credentials.json', 'key or credentials'],
    ['client_secret.json', 'key or credentials'],
    ['src/reading_room/config/agents.yaml', "crew's definition or code"],
    ['tasks.yml', "crew's definition or code"],
    ['crew.jsonc', "crew's definition or code"],
    ['agents/writer.jsonc', "crew's definition or code"],
    ['src/reading_room/crew.py', "crew's definition or code"],
    ['tools/packing-list.ts', "crew's definition or code"],
    ['mcp/weather-lookup.mjs', "crew's definition or code"],
  ])('refuses %s', (path, reason) => {
    expect(crewFileRefusal(join(...path.split('/')))).toContain(reason);
  });
});
