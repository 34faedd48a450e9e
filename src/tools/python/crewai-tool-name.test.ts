import { describe, expect, it } from 'vitest';
import { crewaiToolName } from './crewai-tool-name.ts';

describe('crewaiToolName', () => {
  it("names tools as crewAI's sanitize_tool_name does", () => {
    expect(crewaiToolName('Fact Lookup')).toBe('fact_lookup');
    expect(crewaiToolName('Search 10-K filings')).toBe('search_10_k_filings');
    expect(crewaiToolName("Read a file's content")).toBe('read_a_files_content');
    expect(crewaiToolName('SerperDevTool')).toBe('serper_dev_tool');
    expect(crewaiToolName('HTMLParser')).toBe('html_parser');
    expect(crewaiToolName('Café  Finder!')).toBe('cafe_finder');
  });

  it('cuts a long name to at most 64 characters, ending in a hash of the whole', () => {
    const name = crewaiToolName('word '.repeat(30));

    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^word_word_.*_[0-9a-f]{8}$/);
    expect(crewaiToolName('word '.repeat(31))).not.toBe(name);
  });
});
