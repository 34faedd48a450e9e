import { describe, expect, it } from 'vitest';
import { outputFilePath } from './output-file-path.ts';

describe('output_file paths', () => {
  it("keeps paths inside the workspace, dropping a leading '/' as crewAI does", () => {
    const field = outputFilePath();
    expect(field.parse('report.md')).toBe('report.md');
    expect(field.parse('/reports/{topic}.md')).toBe('reports/{topic}.md');
    expect(field.parse(null)).toBeNull();
  });

  it.each([
    ['../secrets.txt', "must stay inside the execution's workspace (no '..')"],
    ['out/../../x.md', "must stay inside the execution's workspace (no '..')"],
    ['~/report.md', "must be a path relative to the execution's workspace (no '~' or '$')"],
    ['$HOME/report.md', "must be a path relative to the execution's workspace (no '~' or '$')"],
    ['report.md; rm -rf /', 'must not contain shell characters (| > < & ;)'],
    ['reports/{my topic}.md', 'has an invalid placeholder {my topic}'],
    ['reports/', 'must name a file, not a directory'],
    ['/', 'must name a file'],
  ])('refuses %s', (value, message) => {
    const result = outputFilePath().safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(message);
  });
});
