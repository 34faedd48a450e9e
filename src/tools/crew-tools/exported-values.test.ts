import { describe, expect, it } from 'vitest';
import { exportedValues } from './exported-values.ts';

const tool = { name: 'echo' };
const other = { name: 'other' };

describe('exportedValues', () => {
  it("reads an ES module's default and named exports", () => {
    expect(exportedValues({ default: tool, other })).toEqual([tool, other, 'echo']);
  });

  it('reads an ES module compiled to CommonJS, whose default export arrives as default.default', () => {
    const moduleExports = Object.defineProperty({ default: tool, other }, '__esModule', { value: true });

    expect(exportedValues({ default: moduleExports, other })).toEqual([moduleExports, other, tool]);
  });

  it("reads the properties of CommonJS's module.exports, named or not as Node guessed, and the items of arrays", () => {
    const moduleExports = { tool, list: [other] };

    expect(exportedValues({ default: moduleExports, tool })).toEqual([moduleExports, tool, other]);
  });

  it('leaves objects that are not plain, such as class instances, as they are', () => {
    const instance = new (class Holder {
      readonly held = tool;
    })();

    expect(exportedValues({ default: instance })).toEqual([instance]);
  });
});
