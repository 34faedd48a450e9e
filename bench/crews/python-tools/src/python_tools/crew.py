from crewai import Agent, Crew, Process, Task
from crewai.project import CrewBase, agent, crew, task

from python_tools.tools.custom_tool import echo_text


@CrewBase
class PythonTools:
    @agent
    def clerk(self) -> Agent:
        return Agent(config=self.agents_config["clerk"], tools=[echo_text])

    @task
    def echo_task(self) -> Task:
        return Task(config=self.tasks_config["echo_task"])

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
