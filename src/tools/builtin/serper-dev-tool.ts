import { z } from 'zod';
import { defaultFetchMaxBytes, defaultFetchTimeoutMs } from './builtin-tool-options.ts';
import { defineBuiltinTool } from './define-builtin-tool.ts';
import { formatSerperResults } from './serper-results.ts';
import { ToolFailure } from './tool-failure.ts';
import { fetchWeb } from './web-fetch.ts';

const defaultBaseUrl = 'https://google.serper.dev';

/** crewAI's SerperDevTool: a Google search through serper.dev, with the answer trimmed as crewAI trims it. */
export const serperDevTool = defineBuiltinTool({
  name: 'SerperDevTool',
  args: z.object({
    search_query: z.string().min(1).describe('Mandatory search query you want to use to search the internet'),
  }),
  settings: z.object({
    n_results: z.number().int().min(1).max(100).default(10),
    search_type: z.enum(['search', 'news']).default('search'),
    country: z.string().default(''),
    location: z.string().default(''),
    locale: z.string().default(''),
    /** Where requests go; the operator's `SERPER_BASE_URL`, or serper.dev. */
    base_url: z.url({ protocol: /^https?$/ }).optional(),
  }),
  describe: () =>
    "A tool that can be used to search the internet with a search_query. Supports different search types: 'search' (default), 'news'",
  async run(args, settings, context, options) {
    const apiKey = options.env['SERPER_API_KEY'];
    if (apiKey === undefined || apiKey === '') {
      throw new ToolFailure('SerperDevTool cannot search: SERPER_API_KEY is not set for crewd.');
    }
    const baseUrl = settings.base_url ?? nonEmpty(options.env['SERPER_BASE_URL']) ?? defaultBaseUrl;
    const url = URL.canParse(`${baseUrl.replace(/\/+$/, '')}/${settings.search_type}`)
      ? new URL(`${baseUrl.replace(/\/+$/, '')}/${settings.search_type}`)
      : undefined;
    if (url === undefined)
      throw new ToolFailure('SerperDevTool cannot search: SERPER_BASE_URL is not a valid URL.');
    const payload: Record<string, string | number> = { q: args.search_query, num: settings.n_results };
    if (settings.country !== '') payload['gl'] = settings.country;
    if (settings.location !== '') payload['location'] = settings.location;
    if (settings.locale !== '') payload['hl'] = settings.locale;
    const answer = await fetchWeb(
      {
        url,
        label: 'Serper',
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(payload),
        maxRedirects: 0,
        overSize: 'refuse',
      },
      {
        allowPrivateTargets: options.allowPrivateTargets,
        timeoutMs: options.fetchTimeoutMs ?? defaultFetchTimeoutMs,
        maxBytes: options.fetchMaxBytes ?? defaultFetchMaxBytes,
      },
      context.abortSignal,
    );
    // The provider's own error text stays out: it can echo the key or internal detail.
    if (answer.status < 200 || answer.status >= 300)
      throw new ToolFailure(`Serper answered HTTP ${answer.status}.`);
    const results = parseObject(answer.body);
    const formatted = formatSerperResults(results, {
      query: args.search_query,
      searchType: settings.search_type,
      count: settings.n_results,
    });
    return JSON.stringify(formatted);
  },
});

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function parseObject(body: Buffer): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new ToolFailure('Serper sent an answer that is not JSON.');
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    Object.keys(parsed).length === 0
  ) {
    throw new ToolFailure('Empty response from Serper API');
  }
  return parsed as Record<string, unknown>;
}
