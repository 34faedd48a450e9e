import { isCelList, isCelMap, isCelUint } from '@bufbuild/cel';
import type { CelValue } from '@bufbuild/cel';
import { otherValueText } from './cel-values.ts';

/**
 * Python's `repr` of a float, which `json.dumps` writes: `3.0`, not `3`; exponents from 1e16 up (`1e+16`) and
 * below 1e-4 (`1e-05`); `NaN` and `Infinity` as Python's json writes them.
 */
export function pythonFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
  const magnitude = Math.abs(value);
  if (magnitude !== 0 && (magnitude >= 1e16 || magnitude < 1e-4)) {
    const [mantissa = '', exponent = '0'] = value.toExponential().split('e');
    const sign = exponent.startsWith('-') ? '-' : '+';
    const digits = exponent.replace(/^[+-]/, '').padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  const text = String(value);
  return Number.isInteger(value) ? `${text}.0` : text;
}

/** Python's `json.dumps(value, ensure_ascii=False)` of a CEL value: `", "` and `": "` separators, float repr. */
export function pythonJsonDumps(value: CelValue): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return pythonFloat(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (isCelUint(value)) return value.value.toString();
  if (isCelList(value)) return `[${Array.from(value, (item) => pythonJsonDumps(item)).join(', ')}]`;
  if (isCelMap(value)) {
    const entries = Array.from(value.entries(), ([key, item]) => {
      const name = typeof key === 'string' ? key : pythonJsonDumps(key);
      return `${JSON.stringify(name)}: ${pythonJsonDumps(item)}`;
    });
    return `{${entries.join(', ')}}`;
  }
  if (value instanceof Uint8Array) return JSON.stringify(Buffer.from(value).toString('utf8'));
  return JSON.stringify(otherValueText(value));
}

/**
 * Python's `str()` of a method's result, which is how a router's result becomes an event name: `True`/`False`,
 * whole numbers without `.0` only when they are ints, dicts and lists in Python's repr.
 */
export function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pythonFloat(value);
  return pythonRepr(value);
}

function pythonRepr(value: unknown): string {
  if (typeof value === 'string') return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, item]) => `${pythonRepr(key)}: ${pythonRepr(item)}`);
    return `{${entries.join(', ')}}`;
  }
  return pythonStr(value);
}
