import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCrewPy } from './read-crew-py.ts';

/** Writes `files` (paths relative to the project root) and reads `src/demo/crew.py`. */
async function read(files: Record<string, string>, env: Record<string, string> = {}) {
  const root = mkdtempSync(path.join(tmpdir(), 'crewd-crew-py-'));
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(root, name);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  const reading = await readCrewPy(path.join(root, 'src/demo/crew.py'), { crewRoot: root, env });
  if (reading === undefined) throw new Error('no CrewBase class read');
  return reading;
}

const header = `from crewai import Agent, Crew, Process, Task, LLM
from crewai.project import CrewBase, agent, crew, task
`;

describe('readCrewPy', () => {
  it('turns LLM(...) into the YAML object form and keeps a string model a string', async () => {
    const reading = await read(
      {
        'src/demo/crew.py': `${header}
import os

local = LLM(model="ollama/llama3.1", base_url="http://localhost:11434", temperature=0.2, max_tokens=800)

@CrewBase
class Demo:
    @agent
    def writer(self) -> Agent:
        return Agent(config=self.agents_config["writer"], llm=local)

    @agent
    def checker(self) -> Agent:
        return Agent(config=self.agents_config["checker"], llm=os.getenv("CHECK_MODEL", "gpt-4o"))

    @agent
    def planner(self) -> Agent:
        return Agent(role="Planner", goal="Plan", backstory="Plans.", llm=LLM("anthropic/claude-sonnet-4-5"))
`,
      },
      { CHECK_MODEL: 'groq/llama-3.1-8b-instant' },
    );

    expect(reading.agents.map((agent) => [agent.name, agent.entry.llm])).toEqual([
      [
        'writer',
        { model: 'ollama/llama3.1', base_url: 'http://localhost:11434', temperature: 0.2, max_tokens: 800 },
      ],
      ['checker', 'groq/llama-3.1-8b-instant'],
      ['planner', { model: 'anthropic/claude-sonnet-4-5' }],
    ]);
    expect(reading.agents[2]?.entry).toMatchObject({ role: 'Planner', goal: 'Plan', backstory: 'Plans.' });
    expect(reading.dropped).toEqual([]);
  });

  it('reads a model an @llm method returns, a literal config mapping, and reports a config it cannot read', async () => {
    const reading = await read({
      'src/demo/crew.py': `${header}
from crewai.project import llm
from langchain_anthropic import ChatAnthropic

@CrewBase
class Demo:
    @llm
    def careful(self):
        return ChatAnthropic(model="claude-sonnet-4-5", max_tokens_to_sample=900)

    @agent
    def writer(self) -> Agent:
        return Agent(config={"role": "Writer", "goal": "Write", "backstory": "Writes."}, llm=self.careful())

    @agent
    def checker(self) -> Agent:
        return Agent(config=load_config("checker"), role="Checker")
`,
    });

    expect(reading.agents.map((agent) => [agent.name, agent.entry])).toEqual([
      [
        'writer',
        {
          role: 'Writer',
          goal: 'Write',
          backstory: 'Writes.',
          llm: { model: 'anthropic/claude-sonnet-4-5', max_tokens: 900 },
        },
      ],
      ['checker', { role: 'Checker' }],
    ]);
    expect(reading.dropped).toEqual([
      'src/demo/crew.py:19 (checker.config): `load_config("checker")` cannot be read statically; it is left out',
    ]);
  });

  it('reads task agents, context and the crew process from the methods, in method order', async () => {
    const reading = await read({
      'src/demo/crew.py': `${header}
@CrewBase
class Demo:
    @agent
    def researcher(self) -> Agent:
        return Agent(config=self.agents_config["research_agent"], allow_delegation=True, max_iter=4)

    @task
    def second(self) -> Task:
        return Task(config=self.tasks_config["second"], agent=self.researcher(), context=[self.first()],
                    output_file="out/report.md", human_input=True, async_execution=False)

    @task
    def first(self) -> Task:
        return Task(description="Find {topic}", expected_output="Notes", agent=self.researcher())

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.hierarchical,
                    manager_llm="openai/gpt-4o", memory=True)
`,
    });

    expect(reading.agents).toEqual([
      {
        name: 'research_agent',
        method: 'researcher',
        configKey: 'research_agent',
        entry: { allow_delegation: true, max_iter: 4 },
        line: 8,
        lines: { allow_delegation: 8, max_iter: 8 },
      },
    ]);
    expect(reading.tasks.map((task) => [task.name, task.entry])).toEqual([
      [
        'second',
        {
          agent: 'research_agent',
          context: ['first'],
          output_file: 'out/report.md',
          human_input: true,
          async_execution: false,
        },
      ],
      ['first', { description: 'Find {topic}', expected_output: 'Notes', agent: 'research_agent' }],
    ]);
    expect(reading.crew).toEqual({ process: 'hierarchical', manager_llm: 'openai/gpt-4o', memory: true });
  });

  it('names tools by their class, keeps literal arguments, and gives custom Python tools their origin', async () => {
    const reading = await read({
      'src/demo/tools/custom_tool.py': `from crewai.tools import BaseTool, tool


class WordCounter(BaseTool):
    name: str = "Word counter"
    description: str = "Counts words"

    def _run(self, text: str) -> int:
        return len(text.split())


@tool("Shout")
def shout(text: str) -> str:
    """Shouts."""
    return text.upper()
`,
      'src/demo/crew.py': `${header}
from crewai_tools import SerperDevTool, ScrapeWebsiteTool
from demo.tools.custom_tool import WordCounter
from .tools.custom_tool import shout

search = SerperDevTool(n_results=5, country="fr")

@CrewBase
class Demo:
    @agent
    def writer(self) -> Agent:
        scraper = ScrapeWebsiteTool()
        return Agent(config=self.agents_config["writer"], tools=[search, scraper, WordCounter(), shout])

    @task
    def write(self) -> Task:
        return Task(config=self.tasks_config["write"], tools=[SerperDevTool()])
`,
    });

    expect(reading.agents[0]?.entry).toEqual({
      tools: ['SerperDevTool', 'ScrapeWebsiteTool', 'WordCounter', 'shout'],
      tool_arguments: { SerperDevTool: { n_results: 5, country: 'fr' } },
    });
    expect(reading.tasks[0]?.entry).toEqual({ tools: ['SerperDevTool'] });
    expect(reading.toolOrigins).toEqual({
      WordCounter: 'src/demo/tools/custom_tool.py:4',
      shout: 'src/demo/tools/custom_tool.py:13',
    });
  });

  it("keeps what the project's Python needs to build each tool: module, name and positional arguments", async () => {
    const reading = await read({
      'src/demo/tools/__init__.py': `from crewai.tools import BaseTool


class Greeter(BaseTool):
    name: str = "Greeter"
    description: str = "Greets."

    def __init__(self, greeting: str, **kwargs):
        super().__init__(**kwargs)
`,
      'src/demo/tools/lookup.py': `from crewai.tools import tool


@tool("Fact Lookup")
def lookup_fact(topic: str) -> str:
    """Looks a fact up."""
    return topic
`,
      'src/demo/crew.py': `${header}
from crewai_tools import CSVSearchTool
from demo.tools import Greeter
from demo.tools.lookup import lookup_fact

@CrewBase
class Demo:
    @agent
    def writer(self) -> Agent:
        return Agent(
            config=self.agents_config["writer"],
            tools=[Greeter("Hello", 2, excited=True), lookup_fact, CSVSearchTool(csv="data.csv")],
        )
`,
    });

    expect(reading.agents[0]?.entry).toEqual({
      tools: ['Greeter', 'lookup_fact', 'CSVSearchTool'],
      tool_arguments: {
        Greeter: { excited: true, '*args': ['Hello', 2] },
        CSVSearchTool: { csv: 'data.csv' },
      },
    });
    expect(reading.pythonTools.sourceRoot).toMatch(/\/src$/);
    expect(reading.pythonTools.tools).toEqual({
      Greeter: {
        module: 'demo.tools',
        attribute: 'Greeter',
        kind: 'class',
        origin: 'src/demo/tools/__init__.py:4',
        builtin: false,
      },
      lookup_fact: {
        module: 'demo.tools.lookup',
        attribute: 'lookup_fact',
        kind: 'function',
        origin: 'src/demo/tools/lookup.py:5',
        builtin: false,
      },
      // crewAI's own tool: where crew.py builds it.
      CSVSearchTool: {
        module: 'crewai_tools',
        attribute: 'CSVSearchTool',
        kind: 'class',
        origin: 'src/demo/crew.py:14',
        builtin: true,
      },
    });
    expect(reading.dropped).toEqual([]);
  });

  it('turns Pydantic classes into JSON Schema, following imports into the package', async () => {
    const reading = await read({
      'src/demo/models.py': `from enum import Enum
from typing import Dict, List, Literal, Optional, Union
from pydantic import BaseModel, Field


class Tone(str, Enum):
    CALM = "calm"
    LOUD = "loud"


class Point(BaseModel):
    x: float
    y: float = 0.0


class Base(BaseModel):
    id: int


class Report(Base):
    """A report."""

    title: str = Field(description="The title")
    done: bool = Field(default=False, description="Finished?")
    points: List[Point]
    notes: Optional[list[str]] = None
    scores: Dict[str, int] = Field(default_factory=dict)
    kind: Literal["short", "long"]
    tone: Tone
    value: Union[int, str]
    maybe: str | None = None
`,
      'src/demo/crew.py': `${header}
from demo.models import Report

@CrewBase
class Demo:
    @task
    def write(self) -> Task:
        return Task(config=self.tasks_config["write"], output_pydantic=Report)
`,
    });

    expect(reading.tasks[0]?.entry.output_pydantic).toEqual({
      type: 'object',
      title: 'Report',
      description: 'A report.',
      properties: {
        id: { type: 'integer' },
        title: { type: 'string', description: 'The title' },
        done: { type: 'boolean', description: 'Finished?', default: false },
        points: {
          type: 'array',
          items: {
            type: 'object',
            title: 'Point',
            properties: { x: { type: 'number' }, y: { type: 'number', default: 0 } },
            required: ['x'],
          },
        },
        notes: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }], default: null },
        scores: { type: 'object', additionalProperties: { type: 'integer' } },
        kind: { enum: ['short', 'long'] },
        tone: { enum: ['calm', 'loud'] },
        value: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
        maybe: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null },
      },
      required: ['id', 'title', 'points', 'kind', 'tone', 'value'],
    });
    await expect(reading.modelSchema('Report')).resolves.toMatchObject({ title: 'Report' });
    await expect(reading.modelSchema('Missing')).resolves.toBeUndefined();
  });

  it('reports what it cannot honour with file and line, and keeps the rest', async () => {
    const reading = await read({
      'src/demo/crew.py': `${header}
def check_length(output):
    return (True, output)

def make_llm():
    return LLM(model="gpt-4o")

@CrewBase
class Demo:
    @before_kickoff
    def prepare(self, inputs):
        return inputs

    @agent
    def writer(self) -> Agent:
        return Agent(config=self.agents_config["writer"], llm=make_llm(), verbose=True)

    @task
    def write(self) -> Task:
        return Task(config=self.tasks_config["write"], callback=check_length, markdown=True)

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, step_callback=lambda step: None)
`,
    });

    expect(reading.dropped).toEqual([
      'src/demo/crew.py:13 (prepare): @before_kickoff hook: crewd runs no Python, so it does not run',
      'src/demo/crew.py:18 (writer.llm): `make_llm()` cannot be read statically; it is left out',
      'src/demo/crew.py:22 (write.callback): takes Python code, which crewd does not run',
      'src/demo/crew.py:26 (crew.step_callback): takes Python code, which crewd does not run',
    ]);
    expect(reading.agents[0]?.entry).toEqual({ verbose: true });
    expect(reading.tasks[0]?.entry).toEqual({ markdown: true });
  });

  it("reports an agent's own A2A server as not honoured, and keeps the agent", async () => {
    const reading = await read({
      'src/demo/crew.py': `${header}
from crewai.a2a import A2AServerConfig

@CrewBase
class Demo:
    @agent
    def writer(self) -> Agent:
        return Agent(config=self.agents_config["writer"], a2a=A2AServerConfig(url="https://agents.example.com"), verbose=True)
`,
    });

    expect(reading.dropped).toEqual([
      expect.stringMatching(
        /^src\/demo\/crew\.py:\d+ \(writer\.a2a\): the agent is not served as an A2A agent of its own/,
      ),
    ]);
    expect(reading.agents[0]?.entry).toEqual({ verbose: true });
  });

  it('reads guardrails as descriptions or references to the function they name, and drops a lambda', async () => {
    const reading = await read({
      'src/demo/crew.py': `${header}
def check_length(output):
    return (True, output)

@CrewBase
class Demo:
    @task
    def write(self) -> Task:
        return Task(config=self.tasks_config["write"], guardrails=["Be kind", check_length])

    @task
    def edit(self) -> Task:
        return Task(config=self.tasks_config["edit"], guardrail=lambda output: (True, output))
`,
    });

    expect(reading.tasks[0]?.entry).toEqual({
      guardrails: ['Be kind', { python: 'check_length', at: 'src/demo/crew.py:4' }],
    });
    expect(reading.tasks[1]?.entry).toEqual({});
    expect(reading.dropped).toEqual([
      expect.stringMatching(
        /^src\/demo\/crew\.py:15 \(edit\.guardrail\): .* is not a guardrail crewd can read/,
      ),
    ]);
  });

  it('reports a Pydantic field type it cannot express with the line of the field', async () => {
    const reading = await read({
      'src/demo/crew.py': `${header}
from pydantic import BaseModel

class Odd(BaseModel):
    name: str
    when: Callable[[int], int]

@CrewBase
class Demo:
    @task
    def write(self) -> Task:
        return Task(config=self.tasks_config["write"], output_json=Odd)
`,
    });

    expect(reading.dropped).toEqual([
      'src/demo/crew.py:8 (write.output_json): Odd: the type `Callable[[int], int]` has no JSON Schema form crewd knows; the output is not checked',
    ]);
    expect(reading.tasks[0]?.entry).toEqual({});
  });
});
