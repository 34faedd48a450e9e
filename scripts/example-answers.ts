import type { FakeReply, RecordedRequest } from '../test/support/fake-openai-server.ts';

/**
 * Canned answers for the example crew (topic "AI agents", 2026), chosen by reading the request the way a model
 * would: which task it is, how many times the outline was sent back, and which outline the report must follow.
 */

const findings = `1. **Tool use is the baseline.** Agents now routinely call APIs, databases and browsers through native tool calling, and the Model Context Protocol has become a common way to expose tools to them.
2. **Crews of specialised agents.** Work is increasingly split between a researcher, a writer and a reviewer, coordinated by frameworks such as crewAI, LangGraph and AutoGen rather than one agent doing everything.
3. **People stay in the loop.** Production deployments pause for human approval before anything leaves the building: a draft, a payment, an outgoing email. Review steps are designed in, not bolted on.
4. **Durable execution.** Long-running agent workflows are checkpointed after every step, so a crash or a deploy resumes the work instead of repeating paid model calls.
5. **Observability is expected.** Teams trace every model call, tool call and token, and replay recorded runs to test changes to prompts and crews offline.
6. **Cost control matters more than peak capability.** Routine steps move to smaller models, with token budgets per task and caching of repeated calls.
7. **Prompt injection is the main open risk.** Text returned by tools and web pages can steer an agent; least-privilege tools, sandboxes and outbound allow-lists are the usual mitigations.
8. **Computer-use agents are useful but slow.** Agents that operate browsers and desktop apps handle back-office tasks under supervision, but remain brittle on unfamiliar interfaces.
9. **Agents talking to agents.** Protocols for agent-to-agent communication were announced in 2025 and are being tried between vendors, though few production systems depend on them yet.
10. **Regulation arrives.** Most remaining obligations of the EU AI Act are scheduled to apply from August 2026, pushing teams to document what their agents do and who oversees them.`;

interface Section {
  readonly heading: string;
  /** One line in the outline on what the section covers. */
  readonly covers: string;
  readonly body: string;
}

const sections = {
  changed: {
    heading: 'What changed',
    covers: 'why agents moved from demos to day-to-day work',
    body: 'Agents stopped being a demo feature. Native tool calling and shared tool protocols mean an agent can reach the systems a team already uses, and frameworks for crews of specialised agents turned one-off prompts into repeatable workflows.',
  },
  building: {
    heading: 'How agents are built now',
    covers: 'tools, shared protocols and crews of specialised agents',
    body: 'A typical system gives each agent one job (research, writing, review) and a small set of tools. Tools are exposed through standard interfaces such as the Model Context Protocol, so the same tool serves several agents and frameworks.',
  },
  people: {
    heading: 'Keeping people in charge',
    covers: 'review steps and approvals before work leaves the system',
    body: 'Well-run deployments pause for a person wherever a mistake would be expensive. The reviewer sees the output, approves it or sends it back with feedback, and the agent tries again with that feedback in its context.',
  },
  production: {
    heading: 'Running agents in production',
    covers: 'durability, tracing and replaying recorded runs',
    body: 'Agent workflows run for minutes or days, so they are checkpointed after every step and resume after a crash without repeating work. Every model and tool call is traced, and recorded runs are replayed to test changes offline.',
  },
  cost: {
    heading: 'What it costs',
    covers: 'token budgets, smaller models and caching',
    body: 'The bill is driven by tokens, not by servers. Teams route routine steps to smaller models, set token budgets per task, cache repeated calls and watch usage per run the way they watch latency.',
  },
  risks: {
    heading: 'Risks and rules',
    covers: 'prompt injection, least privilege and the EU AI Act',
    body: 'Text from tools and web pages can steer an agent, so tools get the least privilege they need and outbound traffic is restricted. In Europe, most remaining obligations of the AI Act apply from August 2026, which makes oversight and documentation part of the design.',
  },
  next: {
    heading: 'What to watch next',
    covers: 'computer-use agents and agent-to-agent protocols',
    body: 'Agents that operate browsers and desktop software are improving but stay slow and brittle. Agent-to-agent protocols may let crews from different vendors cooperate; for now they are experiments rather than infrastructure.',
  },
  actions: {
    heading: 'What to do this year',
    covers: 'three concrete steps for a team starting now',
    body: 'Start with one workflow that already has a human review step. Record its runs so changes can be tested offline. Put a token budget and a least-privilege tool list on every agent before widening its reach.',
  },
} satisfies Record<string, Section>;

type SectionName = keyof typeof sections;

interface Outline {
  readonly title: string;
  readonly sections: readonly SectionName[];
}

/** The first outline, and the revisions written after the first and the second rejection. */
const outlines: readonly Outline[] = [
  {
    title: 'AI Agents in 2026: From Demos to Dependable Work',
    sections: ['changed', 'building', 'people', 'production', 'risks', 'next'],
  },
  {
    title: 'AI Agents in 2026: What Works, What It Costs, What to Watch',
    sections: ['changed', 'building', 'people', 'production', 'cost', 'risks'],
  },
  {
    title: 'AI Agents in 2026: A Practical Briefing',
    sections: ['building', 'people', 'production', 'risks', 'actions'],
  },
];

function outlineText(outline: Outline): string {
  const items = outline.sections.map((name, index) => {
    const section: Section = sections[name];
    return `${index + 1}. **${section.heading}**: ${section.covers}`;
  });
  return `# ${outline.title}\n\n${items.join('\n')}`;
}

function reportText(outline: Outline): string {
  const parts = outline.sections.map((name) => {
    const section: Section = sections[name];
    return `## ${section.heading}\n\n${section.body}`;
  });
  const intro =
    'AI agents in 2026 are judged less by what they can do in a demo and more by whether they can be trusted ' +
    'with real work: reviewed by people, resumable after failures, affordable and safe.';
  return `# ${outline.title}\n\n${intro}\n\n${parts.join('\n\n')}`;
}

/** Answers one Chat Completions request of the example crew. */
export function answerExample(request: RecordedRequest): FakeReply {
  const body = request.body as { messages?: unknown } | undefined;
  const messages = (Array.isArray(body?.messages) ? body.messages : []) as {
    role: string;
    content: unknown;
  }[];
  const prompt = messages
    .filter((message) => message.role === 'user')
    .map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    )
    .join('\n');
  const content = answerFor(prompt);
  if (content === undefined)
    return { status: 400, errorMessage: 'The example has no answer for this request' };
  const promptChars = messages.reduce((sum, message) => sum + JSON.stringify(message.content).length, 0);
  return {
    content,
    // About four characters per token, as with English text.
    usage: { prompt_tokens: Math.ceil(promptChars / 4), completion_tokens: Math.ceil(content.length / 4) },
  };
}

function answerFor(prompt: string): string | undefined {
  if (prompt.includes('Current task: Research')) return findings;
  if (prompt.includes('Current task: Draft an outline')) {
    const rejections = prompt.match(/Feedback on attempt \d+/g)?.length ?? 0;
    const outline = outlines[Math.min(rejections, outlines.length - 1)];
    return outline === undefined ? undefined : outlineText(outline);
  }
  if (prompt.includes('Current task: Write the report')) {
    const outline = outlines.find((candidate) => prompt.includes(`# ${candidate.title}`));
    return outline === undefined ? undefined : reportText(outline);
  }
  return undefined;
}
