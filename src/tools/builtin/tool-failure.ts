/**
 * A failure the model should read as it is: a refused path, a missing file, an HTTP error. Any other error a tool
 * throws is reduced to a generic message, because system errors carry absolute paths and addresses.
 */
export class ToolFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolFailure';
  }
}
