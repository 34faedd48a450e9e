import { describe, expect, it } from 'vitest';
import { parseYamlFile } from './yaml-file.ts';

describe('parseYamlFile', () => {
  it('maps a key path to the line its key is written on', () => {
    const yaml = parseYamlFile('first:\n  a: 1\n\nsecond:\n  list:\n    - x\n    - y\n', 'tasks.yaml');

    expect(yaml.lineOf(['first', 'a'])).toBe(2);
    expect(yaml.lineOf(['second'])).toBe(4);
    expect(yaml.lineOf(['second', 'list', 1])).toBe(7);
    // A key that is not there falls back to the nearest one that is.
    expect(yaml.lineOf(['second', 'missing'])).toBe(4);
  });

  it('reads only true and false as booleans, so yes and no stay strings', () => {
    const yaml = parseYamlFile('a: yes\nb: no\nc: true\n', 'tasks.yaml');

    expect(yaml.data).toEqual({ a: 'yes', b: 'no', c: true });
  });

  it('resolves << merge keys', () => {
    const yaml = parseYamlFile(
      'base: &base {goal: Write}\nwriter:\n  <<: *base\n  role: Writer\n',
      'agents.yaml',
    );

    expect(yaml.data).toEqual({ base: { goal: 'Write' }, writer: { goal: 'Write', role: 'Writer' } });
  });

  it('rejects an alias to an anchor that is never set, naming the file', () => {
    expect(() => parseYamlFile('a: *nowhere\n', 'agents.yaml')).toThrow(
      /^agents\.yaml: YAML error: .*nowhere/,
    );
  });

  it('rejects a file holding several documents, with the line of the second', () => {
    expect(() => parseYamlFile('a: 1\n---\nb: 2\n', 'crew.yaml')).toThrow(
      /^crew\.yaml:line 2: YAML syntax error/,
    );
  });
});
