import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinTool } from '../../../src/tools/builtin/index.ts';
import type { BuiltinToolOptions } from '../../../src/tools/builtin/index.ts';
import { startScriptedReceiver } from '../../support/scripted-receiver.ts';
import type { ScriptedReceiver } from '../../support/scripted-receiver.ts';
import { toolContext } from './tool-context.ts';

let serper: ScriptedReceiver;

beforeAll(async () => {
  serper = await startScriptedReceiver();
});
afterAll(() => serper.close());
beforeEach(() => {
  serper.received.length = 0;
});

function options(overrides: Partial<BuiltinToolOptions> = {}): BuiltinToolOptions {
  return {
    env: { SERPER_API_KEY: 'serper-key-1', SERPER_BASE_URL: serper.url },
    crewDir: '/nonexistent',
    workspaceRoot: '/nonexistent',
    crewdState: [],
    allowPrivateTargets: true,
    ...overrides,
  };
}

const searchAnswer = {
  searchParameters: { q: 'crewd', type: 'search', engine: 'google' },
  knowledgeGraph: { title: 'crewd', type: 'Software', website: 'https://crewd.example', extra: 'dropped' },
  organic: [
    {
      title: 'First',
      link: 'https://one.example',
      snippet: 'one',
      position: 1,
      sitelinks: [{ title: 'Docs', link: 'https://one.example/docs' }],
      rating: 5,
    },
    { link: 'https://untitled.example', snippet: 'skipped: no title', position: 2 },
    { title: 'Third', link: 'https://three.example', position: 3 },
    { title: 'Fourth', link: 'https://four.example', snippet: 'four', position: 4 },
  ],
  peopleAlsoAsk: [
    { question: 'What is crewd?', snippet: 'A service', title: 'About', link: 'https://q.example' },
  ],
  relatedSearches: [{ query: 'crewd docs' }, { query: 'crewd api' }],
  credits: 1,
};

describe('SerperDevTool', () => {
  it('posts the query with the API key to Serper and returns the answer trimmed as crewAI trims it', async () => {
    serper.answer('/search', (response) => response.writeHead(200).end(JSON.stringify(searchAnswer)));
    const tool = createBuiltinTool('SerperDevTool', options(), { n_results: 3 });

    const output = await tool.run({ search_query: 'crewd' }, toolContext());

    const [request] = serper.on('/search');
    expect(request!.headers['x-api-key']).toBe('serper-key-1');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.body).toEqual({ q: 'crewd', num: 3 });
    expect(JSON.parse(output)).toEqual({
      searchParameters: { q: 'crewd', type: 'search', engine: 'google' },
      knowledgeGraph: {
        title: 'crewd',
        type: 'Software',
        website: 'https://crewd.example',
        imageUrl: '',
        description: '',
        descriptionSource: '',
        descriptionLink: '',
        attributes: {},
      },
      organic: [
        {
          title: 'First',
          link: 'https://one.example',
          snippet: 'one',
          position: 1,
          sitelinks: [{ title: 'Docs', link: 'https://one.example/docs' }],
        },
        { title: 'Third', link: 'https://three.example', snippet: '', position: 3 },
      ],
      peopleAlsoAsk: [
        { question: 'What is crewd?', snippet: 'A service', title: 'About', link: 'https://q.example' },
      ],
      relatedSearches: [{ query: 'crewd docs' }, { query: 'crewd api' }],
      credits: 1,
    });
    expect(Object.keys(JSON.parse(output))).toEqual([
      'searchParameters',
      'knowledgeGraph',
      'organic',
      'peopleAlsoAsk',
      'relatedSearches',
      'credits',
    ]);
  });

  it('sends crewAI defaults, and country, location and locale as Serper names them', async () => {
    serper.answer('/search', (response) => response.writeHead(200).end(JSON.stringify({ organic: [] })));
    await createBuiltinTool('SerperDevTool', options()).run({ search_query: 'plain' }, toolContext());
    await createBuiltinTool('SerperDevTool', options(), {
      country: 'fr',
      location: 'Paris, France',
      locale: 'fr',
    }).run({ search_query: 'local' }, toolContext());

    expect(serper.on('/search').map((request) => request.body)).toEqual([
      { q: 'plain', num: 10 },
      { q: 'local', num: 10, gl: 'fr', location: 'Paris, France', hl: 'fr' },
    ]);
  });

  it('searches news when preset to, keeping the news fields', async () => {
    serper.answer('/news', (response) =>
      response.writeHead(200).end(
        JSON.stringify({
          news: [{ title: 'Launch', link: 'https://news.example', source: 'Wire', date: '1 day ago', x: 1 }],
          credits: 2,
        }),
      ),
    );
    const tool = createBuiltinTool('SerperDevTool', options(), { search_type: 'news' });

    const output = JSON.parse(await tool.run({ search_query: 'crewd launch' }, toolContext()));

    expect(serper.on('/news')).toHaveLength(1);
    expect(output).toEqual({
      searchParameters: { q: 'crewd launch', type: 'news' },
      news: [
        {
          title: 'Launch',
          link: 'https://news.example',
          snippet: '',
          date: '1 day ago',
          source: 'Wire',
          imageUrl: '',
        },
      ],
      credits: 2,
    });
  });

  it('says the key is missing without calling Serper', async () => {
    const tool = createBuiltinTool('SerperDevTool', options({ env: { SERPER_BASE_URL: serper.url } }));

    await expect(tool.run({ search_query: 'x' }, toolContext())).rejects.toThrow(
      'SerperDevTool cannot search: SERPER_API_KEY is not set for crewd.',
    );
    expect(serper.received).toHaveLength(0);
  });

  it("reports Serper's HTTP errors without its text", async () => {
    serper.answer('/search', (response) =>
      response.writeHead(403).end('{"message":"Invalid key serper-key-1"}'),
    );
    const tool = createBuiltinTool('SerperDevTool', options());

    const failure = await tool.run({ search_query: 'x' }, toolContext()).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe('Serper answered HTTP 403.');
  });

  it('refuses an answer larger than the size cap', async () => {
    serper.answer('/search', (response) =>
      response.writeHead(200).end(JSON.stringify({ organic: [{ title: 'x'.repeat(5000), link: 'l' }] })),
    );
    const tool = createBuiltinTool('SerperDevTool', options({ fetchMaxBytes: 1000 }));

    await expect(tool.run({ search_query: 'x' }, toolContext())).rejects.toThrow(
      'Serper sent an answer larger than 1000 bytes, which is more than tools read.',
    );
  });

  it('goes through the target guard: a loopback endpoint is refused unless private targets are allowed', async () => {
    const tool = createBuiltinTool('SerperDevTool', options({ allowPrivateTargets: false }));

    await expect(tool.run({ search_query: 'x' }, toolContext())).rejects.toThrow(
      'Refused to fetch Serper: its address is loopback, private or otherwise not public',
    );
    expect(serper.received).toHaveLength(0);
  });

  it('shows the model only the search query, and refuses settings it does not have', () => {
    const tool = createBuiltinTool('SerperDevTool', options(), { n_results: 5 });

    expect(tool.inputSchema).toEqual({
      type: 'object',
      properties: { search_query: expect.objectContaining({ type: 'string' }) },
      required: ['search_query'],
    });
    expect(() => createBuiltinTool('SerperDevTool', options(), { save_file: true })).toThrow(
      "SerperDevTool has no argument 'save_file'",
    );
    expect(() => createBuiltinTool('SerperDevTool', options(), { n_results: 'many' })).toThrow(/n_results/);
  });
});
