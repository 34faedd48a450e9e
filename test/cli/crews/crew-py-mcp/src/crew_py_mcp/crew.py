import os

from crewai import Agent, Crew, Process, Task
from crewai.mcp import MCPServerHTTP
from crewai.project import CrewBase, agent, crew, task


@CrewBase
class CrewPyMcp:
    """An agent whose MCP server is written in crew.py, at the address DOCS_MCP_URL gives."""

    @agent
    def librarian(self) -> Agent:
        return Agent(
            config=self.agents_config["librarian"],
            mcps=[MCPServerHTTP(url=os.getenv("DOCS_MCP_URL", "http://localhost:8001/mcp"))],
        )

    @task
    def lookup_task(self) -> Task:
        return Task(config=self.tasks_config["lookup_task"])

    @crew
    def crew(self) -> Crew:
        return Crew(agents=self.agents, tasks=self.tasks, process=Process.sequential)
