import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCrewPy } from './read-crew-py.ts';

async function read(crewPy: string) {
  const root = mkdtempSync(path.join(tmpdir(), 'crewd-crew-py-mcp-'));
  const file = path.join(root, 'src/demo/crew.py');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, crewPy);
  const reading = await readCrewPy(file, { crewRoot: root, env: {} });
  if (reading === undefined) throw new Error('no CrewBase class read');
  return reading;
}

const header = `from crewai import Agent, Crew, Task
from crewai.mcp import MCPServerStdio, MCPServerSSE
from crewai.project import CrewBase, agent, crew, task
from crewai_tools import MCPServerAdapter, SerperDevTool
from mcp import StdioServerParameters
`;

describe('MCP servers in crew.py', () => {
  it("maps MCPServerAdapter's dict and StdioServerParameters, mcps' URLs and server classes onto named servers", async () => {
    const reading = await read(`${header}
weather = {"url": "https://weather.example.com/mcp", "transport": "streamable-http", "headers": {"X-Key": "k"}}

@CrewBase
class Demo:
    @agent
    def forecaster(self) -> Agent:
        return Agent(config=self.agents_config["forecaster"], tools=[SerperDevTool(), MCPServerAdapter(weather)])

    @agent
    def picker(self) -> Agent:
        params = StdioServerParameters(command="uv", args=["run", "servers/files.py"], env={"ROOT": "data"})
        return Agent(config=self.agents_config["picker"], tools=[MCPServerAdapter(params, "read_file", "list_dir")])

    @agent
    def browser(self) -> Agent:
        return Agent(
            config=self.agents_config["browser"],
            mcps=[
                "https://mcp.exa.ai/mcp#web_search",
                MCPServerSSE(url="https://news.example.org/sse"),
                MCPServerStdio(command="uv", args=["run", "servers/files.py"], env={"ROOT": "data"}),
            ],
        )
`);

    expect(reading.dropped).toEqual([]);
    expect(reading.mcpServers).toEqual({
      example: { url: 'https://weather.example.com/mcp', headers: { 'X-Key': 'k' } },
      files: { command: 'uv', args: ['run', 'servers/files.py'], env: { ROOT: 'data' } },
      example_2: { url: 'https://news.example.org/sse' },
    });
    const entries = Object.fromEntries(reading.agents.map((agent) => [agent.name, agent.entry]));
    expect(entries.forecaster).toEqual({ tools: ['SerperDevTool'], mcps: ['example'] });
    expect(entries.picker).toEqual({ tools: ['files.read_file', 'files.list_dir'] });
    expect(entries.browser).toEqual({ mcps: ['https://mcp.exa.ai/mcp#web_search', 'example_2', 'files'] });
  });

  it('reads the CrewBase form: mcp_server_params with get_mcp_tools()', async () => {
    const reading = await read(`${header}
@CrewBase
class Demo:
    mcp_server_params = [
        {"url": "http://localhost:8001/mcp", "transport": "streamable-http"},
        StdioServerParameters(command="python3", args=["servers/notes_server.py"]),
    ]

    @agent
    def reader(self) -> Agent:
        return Agent(config=self.agents_config["reader"], tools=self.get_mcp_tools())
`);

    expect(reading.dropped).toEqual([]);
    expect(reading.mcpServers).toEqual({
      mcp: { url: 'http://localhost:8001/mcp' },
      notes_server: { command: 'python3', args: ['servers/notes_server.py'] },
    });
    expect(reading.agents[0]?.entry).toEqual({ tools: [], mcps: ['mcp', 'notes_server'] });
  });

  it('names what it cannot read, with file and line, and what to do instead', async () => {
    const reading = await read(`${header}
import os

@CrewBase
class Demo:
    @agent
    def dynamic(self) -> Agent:
        return Agent(config=self.agents_config["dynamic"], tools=[MCPServerAdapter(make_params())])

    @agent
    def splatted(self) -> Agent:
        params = StdioServerParameters(command="uv", args=["run", "s.py"], env={**os.environ})
        return Agent(config=self.agents_config["splatted"], tools=[MCPServerAdapter(params)])

    @agent
    def lonely(self) -> Agent:
        return Agent(config=self.agents_config["lonely"], tools=self.get_mcp_tools())
`);

    expect(reading.mcpServers).toEqual({});
    expect(reading.dropped).toEqual([
      'src/demo/crew.py:13 (dynamic.tools): `make_params()` cannot be read statically; write the server literally or declare it under mcp_servers in crew.yaml',
      "src/demo/crew.py:17 (splatted.tools): StdioServerParameters's env `{**os.environ}` cannot be read statically; write it literally or declare the server under mcp_servers in crew.yaml",
      'src/demo/crew.py:22 (lonely.tools): get_mcp_tools() needs mcp_server_params on the crew class, which it lacks',
    ]);
  });
});
