import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { binaryPrefix, hashCrewSnapshot, readCrewSnapshot, writeCrewSnapshot } from './crew-snapshot.ts';

function crewDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'crewd-snapshot-'));
  writeFileSync(join(dir, 'agents.yaml'), 'writer:\n  role: Writer\n');
  mkdirSync(join(dir, 'tools'));
  writeFileSync(join(dir, 'tools', 'lookup.ts'), 'export default {};\n');
  writeFileSync(join(dir, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]));
  for (const ignored of ['.crewd', 'node_modules', '.git', '.venv', 'workspace']) {
    mkdirSync(join(dir, ignored));
    writeFileSync(join(dir, ignored, 'data'), 'not the crew');
  }
  writeFileSync(join(dir, '.env'), 'OPENAI_API_KEY=secret\n');
  return dir;
}

describe('crew snapshots', () => {
  it("reads a crew's files, leaving out .env, crewd's data, dependencies and version control", async () => {
    const files = await readCrewSnapshot(crewDir());
    expect(Object.keys(files).sort()).toEqual(['agents.yaml', 'logo.png', 'tools/lookup.ts']);
    expect(files['logo.png']!.startsWith(binaryPrefix)).toBe(true);
    expect(JSON.stringify(files)).not.toContain('secret');
  });

  it('hashes the same files the same, whatever their order, and other files otherwise', () => {
    const one = hashCrewSnapshot({ 'a.yaml': 'x', 'b.yaml': 'y' });
    expect(hashCrewSnapshot({ 'b.yaml': 'y', 'a.yaml': 'x' })).toBe(one);
    expect(hashCrewSnapshot({ 'a.yaml': 'xb.yaml', yaml: 'y' })).not.toBe(one);
    expect(one).toMatch(/^[0-9a-f]{64}$/);
  });

  it('writes a snapshot out as the same files, binary ones included, and only inside its directory', async () => {
    const source = crewDir();
    const files = await readCrewSnapshot(source);
    const target = join(mkdtempSync(join(tmpdir(), 'crewd-copy-')), 'v1');
    await writeCrewSnapshot(target, { ...files, '../outside.txt': 'escape' });
    expect(await readCrewSnapshot(target)).toEqual(files);
    expect(readFileSync(join(target, 'logo.png'))).toEqual(readFileSync(join(source, 'logo.png')));
    expect(existsSync(join(dirname(target), 'outside.txt'))).toBe(false);
  });
});
