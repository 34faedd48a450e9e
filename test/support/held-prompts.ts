/** Model prompts held unanswered while they contain one of the held words, until the test lets them go. */
export class HeldPrompts {
  readonly #held = new Map<string, { readonly promise: Promise<void>; readonly release: () => void }>();

  hold(words: string): void {
    let release = (): void => {};
    const promise = new Promise<void>((done) => (release = done));
    this.#held.set(words, { promise, release });
  }

  letGo(words: string): void {
    this.#held.get(words)?.release();
    this.#held.delete(words);
  }

  letAllGo(): void {
    for (const words of [...this.#held.keys()]) this.letGo(words);
  }

  /** The held words `prompt` contains and what its answer waits for; undefined when it is not held. */
  find(prompt: string): { readonly words: string; readonly until: Promise<void> } | undefined {
    for (const [words, { promise }] of this.#held)
      if (prompt.includes(words)) return { words, until: promise };
    return undefined;
  }
}
