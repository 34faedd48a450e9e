import { describe, expect, it } from 'vitest';
import { refuseUnavailableSources } from './refuse-unavailable-sources.ts';

const docs = {
  label: "MCP server 'docs'",
  up: false,
  reason: 'connection failed (ECONNREFUSED)',
  address: 'http://127.0.0.1:8001/mcp',
};
const files = {
  label: "MCP server 'files'",
  up: false,
  reason: "environment variable 'TOKEN' (in 'KEY') is not set",
};

describe('refusing to start without a tool source', () => {
  it('names every source that cannot be used, with its address and why, and the way to start without them', () => {
    const warnings: string[] = [];

    expect(() => refuseUnavailableSources([docs, files], false, (message) => warnings.push(message))).toThrow(
      "MCP server 'docs' (http://127.0.0.1:8001/mcp) cannot be used: connection failed (ECONNREFUSED); " +
        "MCP server 'files' cannot be used: environment variable 'TOKEN' (in 'KEY') is not set. " +
        'crewd does not start without their tools: make them reachable, or pass --allow-partial to start without them',
    );
    expect(warnings).toEqual([]);
  });

  it('with --allow-partial, starts and says which sources it starts without', () => {
    const warnings: string[] = [];

    refuseUnavailableSources([docs, files], true, (message) => warnings.push(message));

    expect(warnings).toEqual([
      "starting without MCP server 'docs' (http://127.0.0.1:8001/mcp), which cannot be used: connection failed " +
        '(ECONNREFUSED); its tools fail until it can be reached, and crewd keeps trying to reach it',
      "starting without MCP server 'files', which cannot be used: environment variable 'TOKEN' (in 'KEY') is not " +
        'set; its tools fail until it can be reached, and crewd keeps trying to reach it',
    ]);
  });

  it('says nothing when every source is up', () => {
    const warnings: string[] = [];

    refuseUnavailableSources([], false, (message) => warnings.push(message));

    expect(warnings).toEqual([]);
  });
});
