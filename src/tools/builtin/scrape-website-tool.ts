import { z } from 'zod';
import { defaultFetchMaxBytes, defaultFetchTimeoutMs } from './builtin-tool-options.ts';
import { defineBuiltinTool } from './define-builtin-tool.ts';
import { ToolFailure } from './tool-failure.ts';
import { fetchWeb } from './web-fetch.ts';

/** Sites answer browsers; crewAI sends a browser's headers, so pages read the same through crewd. */
const browserHeaders: Readonly<Record<string, string>> = {
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 crewd',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5',
  'accept-language': 'en-US,en;q=0.9',
};

const maxRedirects = 5;

/** crewAI's ScrapeWebsiteTool: a page's readable text, fetched through the target guard. */
export const scrapeWebsiteTool = defineBuiltinTool({
  name: 'ScrapeWebsiteTool',
  args: z.object({ website_url: z.string().min(1).describe('Mandatory website url to read the file') }),
  settings: z.object({
    /** crewAI's `cookies={"name": …, "value": "ENV_VAR"}`: the cookie's value comes from the environment. */
    cookies: z.object({ name: z.string().min(1), value: z.string().min(1) }).optional(),
  }),
  describe(presets) {
    const fixed = typeof presets['website_url'] === 'string' ? presets['website_url'] : undefined;
    if (fixed !== undefined) return `A tool that can be used to read ${fixed}'s content.`;
    return 'A tool that can be used to read a website content.';
  },
  async run(args, settings, context, options) {
    const url = URL.canParse(args.website_url) ? new URL(args.website_url) : undefined;
    if (url === undefined) throw new ToolFailure(`'${args.website_url}' is not a valid URL.`);
    const headers: Record<string, string> = { ...browserHeaders };
    if (settings.cookies !== undefined) {
      headers['cookie'] = `${settings.cookies.name}=${options.env[settings.cookies.value] ?? ''}`;
    }
    const answer = await fetchWeb(
      { url, label: args.website_url, method: 'GET', headers, maxRedirects, overSize: 'cut' },
      {
        allowPrivateTargets: options.allowPrivateTargets,
        timeoutMs: options.fetchTimeoutMs ?? defaultFetchTimeoutMs,
        maxBytes: options.fetchMaxBytes ?? defaultFetchMaxBytes,
      },
      context.abortSignal,
    );
    if (answer.status >= 400) throw new ToolFailure(`${args.website_url} answered HTTP ${answer.status}.`);
    const media = (answer.contentType ?? 'text/html').split(';')[0]!.trim().toLowerCase();
    const isHtml = media === 'text/html' || media === 'application/xhtml+xml' || media === '';
    if (!isHtml && !media.startsWith('text/') && !/[/+]json$|[/+]xml$/.test(media)) {
      throw new ToolFailure(`${args.website_url} is not a web page or text (its content type is ${media}).`);
    }
    const raw = decodeBody(answer.body, answer.contentType);
    // The HTML parser loads with the first page read, not with every server.
    const { foldWhitespace, pageText } = await import('./page-text.ts');
    const text = isHtml ? pageText(raw) : foldWhitespace(raw);
    const cut = answer.truncated ? `\n\n[The page was cut after its first ${answer.body.length} bytes.]` : '';
    return `The following text is scraped website content:\n\n${text}${cut}`;
  },
});

/** Decodes by the charset the server or the page declares, UTF-8 otherwise. */
function decodeBody(body: Buffer, contentType: string | undefined): string {
  const declared =
    /charset=["']?([\w.:-]+)/i.exec(contentType ?? '')?.[1] ??
    /<meta[^>]+charset=["']?([\w.:-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(body);
  } catch {
    // An unknown charset label: UTF-8 shows most pages well enough.
    return new TextDecoder('utf-8').decode(body);
  }
}
