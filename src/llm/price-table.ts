/**
 * The price port: what a model call cost, from a table of providers' prices. Budgets and `/status` read costs
 * through it; tests give their own prices.
 */
export interface PriceTable {
  /**
   * The cost in US dollars of a call of `model` (`provider/model`, as written in the crew) with these tokens;
   * undefined when the table has no price for that model.
   */
  costUsd(model: string, tokens: { readonly input: number; readonly output: number }): number | undefined;
}
