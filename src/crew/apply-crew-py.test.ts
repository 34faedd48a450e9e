import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCrew } from './load-crew.ts';

const agentsYaml = `writer:
  role: Writer
  goal: Write about {topic}
  backstory: You write.
  max_iter: 3
`;

const tasksYaml = `first:
  description: First about {topic}.
  expected_output: Notes.
second:
  description: Second.
  expected_output: Text.
third:
  description: Third.
  expected_output: More.
`;

function project(crewPy: string): string {
  const root = mkdtempSync(path.join(tmpdir(), 'crewd-apply-'));
  const config = path.join(root, 'src/demo/config');
  mkdirSync(config, { recursive: true });
  writeFileSync(path.join(config, 'agents.yaml'), agentsYaml);
  writeFileSync(path.join(config, 'tasks.yaml'), tasksYaml);
  writeFileSync(path.join(root, 'src/demo/crew.py'), crewPy);
  return root;
}

const methods = `from crewai import Agent, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task

@CrewBase
class Demo:
    @agent
    def writer(self) -> Agent:
        return Agent(config=self.agents_config["writer"], max_iter=None, allow_delegation=True)

    @task
    def first(self) -> Task:
        return Task(config=self.tasks_config["first"], agent=self.writer())

    @task
    def second(self) -> Task:
        return Task(config=self.tasks_config["second"], agent=self.writer(), context=[])
`;

describe('crew.py laid over the YAML', () => {
  it("lets crew.py's arguments win, keeps the YAML's where an argument is None, and leaves out tasks no method reads", async () => {
    const warnings: string[] = [];

    const crew = await loadCrew(
      project(`${methods}
    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
`),
      { warn: (message) => warnings.push(message) },
    );

    expect(crew.agents.get('writer')).toMatchObject({ maxIter: 3, allowDelegation: true });
    expect(crew.tasks.map((task) => [task.name, task.agent, task.context])).toEqual([
      ['first', 'writer', undefined],
      ['second', 'writer', []],
    ]);
    expect(warnings).toEqual([
      'src/demo/config/tasks.yaml (third): src/demo/crew.py does not put this task in the crew, so it does not run (as in crewAI)',
    ]);
  });

  it('runs the tasks Crew(tasks=[...]) lists, in that order', async () => {
    const warnings: string[] = [];

    const crew = await loadCrew(
      project(`${methods}
    @crew
    def crew(self) -> Crew:
        return Crew(agents=[self.writer()], tasks=[self.second(), self.first()])
`),
      { warn: (message) => warnings.push(message) },
    );

    expect(crew.tasks.map((task) => task.name)).toEqual(['second', 'first']);
    expect(warnings).toHaveLength(1);
  });

  it("reads a hierarchical Crew(...)'s manager_agent and manager_llm without a warning", async () => {
    const warnings: string[] = [];

    const crew = await loadCrew(
      project(`${methods}
    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.hierarchical,
                    manager_agent=self.writer(), manager_llm="openai/gpt-4o")
`),
      { warn: (message) => warnings.push(message) },
    );

    expect(crew).toMatchObject({
      process: 'hierarchical',
      managerAgent: 'writer',
      managerLlm: { model: 'openai/gpt-4o' },
    });
    expect(warnings).toHaveLength(1); // the unread third task, as above
  });
});
