import { Lexer } from 'marked';
import type { Token, Tokens } from 'marked';
import type { ComponentChildren } from 'preact';

/**
 * Renders model output as Markdown without ever producing HTML strings: marked only tokenizes, and every token
 * becomes a Preact element, so raw HTML in an output is shown as text and cannot run.
 */
export function Markdown({ text }: { text: string }) {
  return <div class="markdown">{renderTokens(Lexer.lex(text, { gfm: true }))}</div>;
}

function safeHref(href: string): string | null {
  try {
    const url = new URL(href, 'http://invalid.example/');
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) && url.host !== 'invalid.example'
      ? href
      : null;
  } catch {
    return null;
  }
}

function renderTokens(tokens: readonly Token[] | undefined): ComponentChildren[] {
  return (tokens ?? []).map((token, index) => renderToken(token, index));
}

function renderToken(token: Token, key: number): ComponentChildren {
  switch (token.type) {
    case 'heading': {
      const depth = Math.min(6, Math.max(3, (token as Tokens.Heading).depth + 2));
      const Tag = `h${depth}` as 'h3';
      return <Tag key={key}>{renderTokens(token.tokens)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{renderTokens(token.tokens)}</p>;
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens === undefined ? text.text : <span key={key}>{renderTokens(text.tokens)}</span>;
    }
    case 'strong':
      return <strong key={key}>{renderTokens(token.tokens)}</strong>;
    case 'em':
      return <em key={key}>{renderTokens(token.tokens)}</em>;
    case 'del':
      return <del key={key}>{renderTokens(token.tokens)}</del>;
    case 'codespan':
      return <code key={key}>{(token as Tokens.Codespan).text}</code>;
    case 'code':
      return (
        <pre key={key}>
          <code>{(token as Tokens.Code).text}</code>
        </pre>
      );
    case 'blockquote':
      return <blockquote key={key}>{renderTokens(token.tokens)}</blockquote>;
    case 'hr':
      return <hr key={key} />;
    case 'br':
      return <br key={key} />;
    case 'list': {
      const list = token as Tokens.List;
      const items = list.items.map((item, index) => <li key={index}>{renderTokens(item.tokens)}</li>);
      return list.ordered ? <ol key={key}>{items}</ol> : <ul key={key}>{items}</ul>;
    }
    case 'link': {
      const link = token as Tokens.Link;
      const href = safeHref(link.href);
      if (href === null) return <span key={key}>{renderTokens(link.tokens)}</span>;
      return (
        <a key={key} href={href} target="_blank" rel="noopener noreferrer">
          {renderTokens(link.tokens)}
        </a>
      );
    }
    case 'image':
      // Images would load from wherever the output points; the text stands in for them.
      return (token as Tokens.Image).text;
    case 'table': {
      const table = token as Tokens.Table;
      return (
        <div key={key} class="scroll">
          <table>
            <thead>
              <tr>
                {table.header.map((cell, index) => (
                  <th key={index}>{renderTokens(cell.tokens)}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row, rowIndex) => (
                <tr key={rowIndex}>
                  {row.map((cell, index) => (
                    <td key={index}>{renderTokens(cell.tokens)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case 'space':
      return null;
    default:
      // html, escape and anything newer: the source text, as text.
      return 'text' in token && typeof token.text === 'string' ? token.text : token.raw;
  }
}
