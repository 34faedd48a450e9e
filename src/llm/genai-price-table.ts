import type * as GenaiPrices from '@pydantic/genai-prices';
import { createRequire } from 'node:module';
import type { PriceTable } from './price-table.ts';

type CalcPrice = typeof GenaiPrices.calcPrice;

let loaded: CalcPrice | undefined;

/**
 * The table, read on the first price asked for rather than at start: it is large, and a server that never prices
 * a call (or has not yet) starts faster without it. Its CommonJS build loads in the same turn.
 */
function calcPrice(...args: Parameters<CalcPrice>): ReturnType<CalcPrice> {
  loaded ??= (createRequire(import.meta.url)('@pydantic/genai-prices') as { calcPrice: CalcPrice }).calcPrice;
  return loaded(...args);
}

/** crewd's provider names where the price table names the provider otherwise. */
const providerIds: Readonly<Record<string, string>> = {
  gemini: 'google',
  bedrock: 'aws',
};

/**
 * Prices from `@pydantic/genai-prices`, a maintained table of the providers' published prices, as bundled with the
 * installed version (it is never fetched at run time: a price changes with an upgrade, not behind a running crew).
 */
export function createGenaiPriceTable(): PriceTable {
  const known = new Map<string, ((input: number, output: number) => number) | null>();
  return {
    costUsd(model, tokens) {
      let price = known.get(model);
      if (price === undefined) {
        price = priceOf(model);
        known.set(model, price);
      }
      return price === null ? undefined : price(tokens.input, tokens.output);
    },
  };
}

/** The model's price per call, found once; null when the table does not know the model. */
function priceOf(model: string): ((input: number, output: number) => number) | null {
  const slash = model.indexOf('/');
  const provider = slash < 0 ? undefined : model.slice(0, slash);
  const modelId = slash < 0 ? model : model.slice(slash + 1);
  const providerId = provider === undefined ? undefined : (providerIds[provider] ?? provider);
  const options = providerId === undefined ? {} : { providerId };
  const calculate = (input: number, output: number): number | undefined => {
    try {
      return calcPrice({ input_tokens: input, output_tokens: output }, modelId, options)?.total_price;
    } catch {
      // An unknown provider is an unknown price, not a failed call.
      return undefined;
    }
  };
  const perInput = calculate(referenceTokens, 0);
  const perOutput = calculate(0, referenceTokens);
  if (perInput === undefined || perOutput === undefined) return null;
  const linear = (input: number, output: number): number =>
    (input * perInput + output * perOutput) / referenceTokens;
  // A lookup in the table takes a good part of a millisecond, too much for every model call: a model whose price
  // is the same per token at any size is priced from its rates; one with tiers (a higher price past so many
  // tokens) is looked up each time.
  const large = calculate(tieredTokens, tieredTokens);
  if (large !== undefined && Math.abs(large - linear(tieredTokens, tieredTokens)) <= large * 1e-9)
    return linear;
  return (input, output) => calculate(input, output) ?? 0;
}

const referenceTokens = 1_000_000;
/** Past the tiers providers publish (Gemini's and Claude's change at 200,000 tokens). */
const tieredTokens = 2_000_000;
