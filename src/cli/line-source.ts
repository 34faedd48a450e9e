import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** Answers to questions asked on the terminal, or read from a script of lines. */
export interface LineSource {
  /** The next answer, or undefined once the input has ended. */
  ask(question: string): Promise<string | undefined>;
  close(): void;
}

/** Asks a person at a terminal; Ctrl-C or Ctrl-D at a question ends the input. */
export function terminalLineSource(input: Readable, output: Writable): LineSource {
  const reader = createInterface({ input, output, terminal: true });
  let closed = false;
  const whenClosed = new Promise<undefined>((resolve) =>
    reader.once('close', () => {
      closed = true;
      resolve(undefined);
    }),
  );
  // In raw mode Ctrl-C reaches readline, not the process; without this listener it would only pause input.
  reader.on('SIGINT', () => reader.close());
  return {
    ask(question) {
      if (closed) return Promise.resolve(undefined);
      const answer = new Promise<string>((resolve) => reader.question(question, resolve));
      return Promise.race([answer, whenClosed]);
    },
    close: () => reader.close(),
  };
}

/**
 * Answers from lines that were written beforehand (a pipe into stdin, a feedback file). Each question and its
 * answer are echoed, so the output reads like the conversation it stands for.
 */
export function scriptedLineSource(input: Readable | readonly string[], output: Writable): LineSource {
  const reader = Array.isArray(input)
    ? undefined
    : createInterface({ input: input as Readable, crlfDelay: Infinity, terminal: false });
  const lines: AsyncIterator<string> | Iterator<string> =
    reader === undefined ? (input as readonly string[])[Symbol.iterator]() : reader[Symbol.asyncIterator]();
  let ended = false;
  return {
    async ask(question) {
      const next = ended ? undefined : await lines.next();
      if (next === undefined || next.done === true) {
        ended = true;
        return undefined;
      }
      output.write(`${question}${next.value}\n`);
      return next.value;
    },
    close: () => reader?.close(),
  };
}

/** A line source opened on first use; `close` closes it only if it was opened. */
export interface LazyLineSource {
  readonly open: () => LineSource;
  close(): void;
}

/**
 * Where review answers come from: the lines of a feedback file when given, else the terminal when stdin is one,
 * else stdin's lines as they come.
 */
export function lazyLineSource(
  scripted: readonly string[] | undefined,
  stdin: Readable & { readonly isTTY?: boolean },
  stderr: Writable,
): LazyLineSource {
  let lines: LineSource | undefined;
  return {
    open: () => {
      lines ??=
        scripted !== undefined
          ? scriptedLineSource(scripted, stderr)
          : stdin.isTTY === true
            ? terminalLineSource(stdin, stderr)
            : scriptedLineSource(stdin, stderr);
      return lines;
    },
    close: () => lines?.close(),
  };
}
