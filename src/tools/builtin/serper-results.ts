/** What the search asked for, to label and trim the answer. */
export interface SerperQuery {
  readonly query: string;
  readonly searchType: 'search' | 'news';
  /** How many results of each kind are kept. */
  readonly count: number;
}

type Json = Record<string, unknown>;

/**
 * Serper's answer trimmed to what crewAI's SerperDevTool keeps, field for field and in its order, so prompts and
 * expectations written against crewAI read the same result: the search parameters, then the knowledge graph,
 * organic results, "people also ask" and related searches (or news), then the credits used. Entries missing a
 * required field are skipped, as crewAI skips them.
 */
export function formatSerperResults(results: Json, query: SerperQuery): Json {
  const formatted: Json = {
    searchParameters: { q: query.query, type: query.searchType, ...objectOr(results['searchParameters']) },
  };
  const take = (value: unknown, pick: (item: Json) => Json | undefined): Json[] =>
    (Array.isArray(value) ? value : []).slice(0, query.count).flatMap((item: unknown) => {
      const picked = isObject(item) ? pick(item) : undefined;
      return picked === undefined ? [] : [picked];
    });
  if (query.searchType === 'search') {
    const graph = results['knowledgeGraph'];
    if (isObject(graph)) formatted['knowledgeGraph'] = knowledgeGraph(graph);
    if ('organic' in results) formatted['organic'] = take(results['organic'], organic);
    if ('peopleAlsoAsk' in results)
      formatted['peopleAlsoAsk'] = take(results['peopleAlsoAsk'], peopleAlsoAsk);
    if ('relatedSearches' in results) {
      formatted['relatedSearches'] = take(results['relatedSearches'], (item) =>
        item['query'] === undefined ? undefined : { query: item['query'] },
      );
    }
  } else if ('news' in results) {
    formatted['news'] = take(results['news'], news);
  }
  formatted['credits'] = results['credits'] ?? 1;
  return formatted;
}

function knowledgeGraph(graph: Json): Json {
  return {
    title: graph['title'] ?? '',
    type: graph['type'] ?? '',
    website: graph['website'] ?? '',
    imageUrl: graph['imageUrl'] ?? '',
    description: graph['description'] ?? '',
    descriptionSource: graph['descriptionSource'] ?? '',
    descriptionLink: graph['descriptionLink'] ?? '',
    attributes: graph['attributes'] ?? {},
  };
}

function organic(item: Json): Json | undefined {
  if (item['title'] === undefined || item['link'] === undefined) return undefined;
  const result: Json = {
    title: item['title'],
    link: item['link'],
    snippet: item['snippet'] ?? '',
    position: item['position'] ?? null,
  };
  if (Array.isArray(item['sitelinks'])) {
    result['sitelinks'] = item['sitelinks'].filter(isObject).map((link) => ({
      title: link['title'] ?? '',
      link: link['link'] ?? '',
    }));
  }
  return result;
}

function peopleAlsoAsk(item: Json): Json | undefined {
  if (item['question'] === undefined) return undefined;
  return {
    question: item['question'],
    snippet: item['snippet'] ?? '',
    title: item['title'] ?? '',
    link: item['link'] ?? '',
  };
}

function news(item: Json): Json | undefined {
  if (item['title'] === undefined || item['link'] === undefined) return undefined;
  return {
    title: item['title'],
    link: item['link'],
    snippet: item['snippet'] ?? '',
    date: item['date'] ?? '',
    source: item['source'] ?? '',
    imageUrl: item['imageUrl'] ?? '',
  };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectOr(value: unknown): Json {
  return isObject(value) ? value : {};
}
