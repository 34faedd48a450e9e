import { describe, expect, it } from 'vitest';
import { modelToolNames } from './model-tool-names.ts';

describe('modelToolNames', () => {
  it('keeps names every provider accepts and makes the others safe and unique', () => {
    expect(
      modelToolNames([
        'SerperDevTool',
        'files.read_file',
        'files_read_file',
        'https://x.test/mcp#look up',
        '..',
        'a'.repeat(70),
      ]),
    ).toEqual([
      'SerperDevTool',
      'files_read_file',
      'files_read_file_2',
      'https_x_test_mcp_look_up',
      'tool',
      'a'.repeat(64),
    ]);
  });

  it('keeps a suffixed long name within 64 characters', () => {
    const [first, second] = modelToolNames(['b'.repeat(80), 'b'.repeat(90)]);
    expect(first).toBe('b'.repeat(64));
    expect(second).toBe(`${'b'.repeat(62)}_2`);
  });
});
