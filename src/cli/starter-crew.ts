/**
 * The crew `crewd init` writes: two agents, a task with human review and a task with structured output, on an
 * offline replay model. The answers below are what the replay file is recorded from.
 */

export const starterInputs = { topic: 'tide pools' };

export const starterFiles: Readonly<Record<string, string>> = {
  'crew.yaml': `# The whole crew's settings. replay/ is an offline model that answers from a recorded file, so this crew runs
# with no API key and no network. It was recorded with {"topic": "tide pools"}; other inputs or feedback get a
# labelled offline stand-in answer, so the crew still runs to the end (CREWD_REPLAY_STRICT=1 makes that an error).
# For a real model, set llm to e.g. openai/gpt-4o-mini (with OPENAI_API_KEY), or remove it and set MODEL.
name: starter-crew
process: sequential
llm: replay/starter-crew.replay.json
`,
  'agents.yaml': `researcher:
  role: "{topic} researcher"
  goal: Find the facts about {topic} that a newcomer needs first
  backstory: You explain {topic} plainly and check what you say.

writer:
  role: Brief writer
  goal: Turn research into a short, well organised brief
  backstory: You write for busy readers.
`,
  'tasks.yaml': `research_task:
  description: List the five facts about {topic} that a newcomer should know first.
  expected_output: Five facts, one per line.
  agent: researcher

outline_task:
  description: Outline a one-page brief on {topic} from the facts. A person reviews the outline before the brief is written.
  expected_output: A title and three section headings.
  agent: writer
  human_input: true

brief_task:
  description: Write the one-page brief on {topic}, following the approved outline.
  expected_output: The brief as a title, a two-sentence summary and three key points.
  agent: writer
  output_json:
    type: object
    properties:
      title: { type: string }
      summary: { type: string }
      key_points: { type: array, items: { type: string } }
    required: [title, summary, key_points]
`,
};

/** The recorded answer for each task of the starter crew, keyed by the start of its description. */
export const starterAnswers: readonly { readonly task: string; readonly answer: string }[] = [
  {
    task: 'List the five facts',
    answer: [
      '1. Tide pools form where rock hollows on the shore keep sea water when the tide goes out.',
      '2. Their residents, such as anemones, barnacles and sea stars, survive heat, drying and changing salt twice a day.',
      '3. The pools are zoned: species higher up the shore tolerate longer exposure than those near the low-tide line.',
      '4. Visiting at low tide is best, and turning rocks back the way you found them protects what lives beneath.',
      '5. Many coastal parks protect tide pools, so collecting animals or shells is often not allowed.',
    ].join('\n'),
  },
  {
    task: 'Outline a one-page brief',
    answer: [
      'Title: Tide Pools, a First Visit',
      '1. What a tide pool is',
      '2. Who lives there and how they cope',
      '3. Visiting without doing harm',
    ].join('\n'),
  },
  {
    task: 'Write the one-page brief',
    answer: JSON.stringify({
      title: 'Tide Pools, a First Visit',
      summary:
        'Tide pools are pockets of sea water left on rocky shores at low tide. Their residents are hardy, and visitors can see them without harming them.',
      key_points: [
        'Pools form in rock hollows that hold water when the tide goes out.',
        'Anemones, barnacles and sea stars cope with heat, drying and changing salt.',
        'Go at low tide, put rocks back as you found them, and take nothing home.',
      ],
    }),
  },
];
