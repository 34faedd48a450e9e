import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinTool } from '../../../src/tools/builtin/index.ts';
import type { BuiltinToolOptions } from '../../../src/tools/builtin/index.ts';
import { startScriptedReceiver } from '../../support/scripted-receiver.ts';
import type { ScriptedReceiver } from '../../support/scripted-receiver.ts';
import { toolContext } from './tool-context.ts';

let site: ScriptedReceiver;

beforeAll(async () => {
  site = await startScriptedReceiver();
});
afterAll(() => site.close());
beforeEach(() => {
  site.received.length = 0;
});

function options(overrides: Partial<BuiltinToolOptions> = {}): BuiltinToolOptions {
  return {
    env: {},
    crewDir: '/nonexistent',
    workspaceRoot: '/nonexistent',
    crewdState: [],
    allowPrivateTargets: true,
    ...overrides,
  };
}

const page = `<!doctype html>
<html><head><title>Release notes</title>
<style>body { color: red }</style>
<script>window.secret = "do not show";</script></head>
<body>
  <h1>crewd&nbsp;1.0 &amp; more</h1>
  <p>Runs   crews
     durably.</p>
  <noscript>Enable scripts</noscript>
  <ul><li>One</li><li>Two</li></ul>
  <table><tr><td>a</td><td>b</td></tr></table>
</body></html>`;

function html(body: string, contentType = 'text/html; charset=utf-8') {
  return (response: ServerResponse) => response.writeHead(200, { 'content-type': contentType }).end(body);
}

describe('ScrapeWebsiteTool', () => {
  it("returns a page's readable text, without scripts, styles or markup", async () => {
    site.answer('/notes', html(page));
    const tool = createBuiltinTool('ScrapeWebsiteTool', options());

    const output = await tool.run({ website_url: `${site.url}/notes` }, toolContext());

    expect(output).toBe(
      'The following text is scraped website content:\n\nRelease notes\ncrewd 1.0 & more\nRuns crews durably.\nOne\nTwo\na b',
    );
  });

  it('refuses a loopback page by default, with a message the model reads', async () => {
    site.answer('/notes', html(page));
    const tool = createBuiltinTool('ScrapeWebsiteTool', options({ allowPrivateTargets: false }));

    await expect(tool.run({ website_url: `${site.url}/notes` }, toolContext())).rejects.toThrow(
      `Refused to fetch ${site.url}/notes: its address is loopback, private or otherwise not public, and tools may only reach public addresses. An operator can allow private addresses with CREWD_TOOLS_ALLOW_PRIVATE=1.`,
    );
    await expect(
      tool.run({ website_url: `http://localhost:${site.port}/notes` }, toolContext()),
    ).rejects.toThrow('Refused to fetch');
    expect(site.received).toHaveLength(0);
  });

  it('follows redirects, and refuses one to a scheme other than http and https', async () => {
    site.answer('/old', (response) => response.writeHead(301, { location: '/notes' }).end());
    site.answer('/notes', html('<p>Moved here</p>'));
    site.answer('/to-file', (response) => response.writeHead(302, { location: 'file:///etc/passwd' }).end());
    const tool = createBuiltinTool('ScrapeWebsiteTool', options());

    expect(await tool.run({ website_url: `${site.url}/old` }, toolContext())).toContain('Moved here');
    await expect(tool.run({ website_url: `${site.url}/to-file` }, toolContext())).rejects.toThrow(
      'only http and https URLs can be fetched',
    );
  });

  it('stops following a redirect loop', async () => {
    site.answer('/loop', (response) => response.writeHead(302, { location: '/loop' }).end());
    const tool = createBuiltinTool('ScrapeWebsiteTool', options());

    await expect(tool.run({ website_url: `${site.url}/loop` }, toolContext())).rejects.toThrow(
      'redirected more than 5 times',
    );
    expect(site.on('/loop')).toHaveLength(6);
  });

  it('cuts a page at the size cap and says so', async () => {
    site.answer('/big', html(`<p>${'word '.repeat(1000)}</p>`));
    const tool = createBuiltinTool('ScrapeWebsiteTool', options({ fetchMaxBytes: 500 }));

    const output = await tool.run({ website_url: `${site.url}/big` }, toolContext());

    expect(output).toMatch(/\n\n\[The page was cut after its first 500 bytes\.\]$/);
    expect(output.length).toBeLessThan(700);
  });

  it('reports HTTP errors, bad URLs and content that is not text', async () => {
    site.answer('/missing', (response) => response.writeHead(404).end('<p>Not here</p>'));
    site.answer('/image', html('\u0089PNG', 'image/png'));
    const tool = createBuiltinTool('ScrapeWebsiteTool', options());

    await expect(tool.run({ website_url: `${site.url}/missing` }, toolContext())).rejects.toThrow(
      `${site.url}/missing answered HTTP 404.`,
    );
    await expect(tool.run({ website_url: `${site.url}/image` }, toolContext())).rejects.toThrow(
      'is not a web page or text (its content type is image/png)',
    );
    await expect(tool.run({ website_url: 'not a url' }, toolContext())).rejects.toThrow(
      "'not a url' is not a valid URL.",
    );
  });

  it('gives up on a page that does not answer within the time cap', async () => {
    site.answer('/silent', () => undefined);
    const tool = createBuiltinTool('ScrapeWebsiteTool', options({ fetchTimeoutMs: 200 }));

    await expect(tool.run({ website_url: `${site.url}/silent` }, toolContext())).rejects.toThrow(
      `${site.url}/silent did not answer within 200 ms.`,
    );
  });

  it('decodes the charset the page declares', async () => {
    site.answer('/latin', (response) =>
      response
        .writeHead(200, { 'content-type': 'text/html; charset=iso-8859-1' })
        .end(Buffer.from('<p>Caf\u00e9</p>', 'latin1')),
    );
    const tool = createBuiltinTool('ScrapeWebsiteTool', options());

    expect(await tool.run({ website_url: `${site.url}/latin` }, toolContext())).toContain('Café');
  });

  it('with a preset URL, takes no argument and sends the preset cookie from the environment', async () => {
    site.answer('/notes', html(page));
    const tool = createBuiltinTool('ScrapeWebsiteTool', options({ env: { SESSION_COOKIE: 's3cret' } }), {
      website_url: `${site.url}/notes`,
      cookies: { name: 'session', value: 'SESSION_COOKIE' },
    });

    expect(tool.inputSchema).toEqual({ type: 'object', properties: {} });
    expect(tool.description).toBe(`A tool that can be used to read ${site.url}/notes's content.`);
    expect(await tool.run({}, toolContext())).toContain('Release notes');
    expect(site.on('/notes')[0]!.headers.cookie).toBe('session=s3cret');
  });
});
