import { invalid, type FieldError } from '../errors.js';

/**
 * Collects every violation of a request (each with a JSON pointer) so the
 * client learns all of them at once, then throws one 400.
 */
export class Violations {
  readonly errors: FieldError[] = [];

  add(pointer: string, detail: string): void {
    this.errors.push({ pointer, detail });
  }

  get empty(): boolean {
    return this.errors.length === 0;
  }

  throwIfAny(detail = 'The request is invalid.'): void {
    if (this.errors.length) throw invalid('validation-failed', detail, this.errors);
  }
}

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Escapes a key for use inside a JSON pointer (RFC 6901). */
export function pointerKey(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Reads typed fields of one object, recording violations under its pointer. */
export class FieldReader {
  constructor(
    readonly object: JsonObject,
    readonly pointer: string,
    readonly violations: Violations,
  ) {}

  at(key: string): string {
    return `${this.pointer}/${pointerKey(key)}`;
  }

  has(key: string): boolean {
    return this.object[key] !== undefined && this.object[key] !== null;
  }

  string(key: string, options: { required?: boolean; max?: number; min?: number } = {}): string | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) {
      if (options.required) this.violations.add(this.at(key), 'is required');
      return undefined;
    }
    if (typeof value !== 'string') {
      this.violations.add(this.at(key), 'must be a string');
      return undefined;
    }
    const min = options.min ?? (options.required ? 1 : 0);
    if (value.trim().length < min) {
      this.violations.add(this.at(key), min === 1 ? 'must not be empty' : `must be at least ${min} characters`);
      return undefined;
    }
    if (options.max !== undefined && value.length > options.max) {
      this.violations.add(this.at(key), `must be at most ${options.max} characters`);
      return undefined;
    }
    return value;
  }

  integer(key: string, options: { required?: boolean; min?: number } = {}): number | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) {
      if (options.required) this.violations.add(this.at(key), 'is required');
      return undefined;
    }
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      this.violations.add(this.at(key), 'must be an integer');
      return undefined;
    }
    if (options.min !== undefined && value < options.min) {
      this.violations.add(this.at(key), `must be at least ${options.min}`);
      return undefined;
    }
    return value;
  }

  boolean(key: string): boolean | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') {
      this.violations.add(this.at(key), 'must be a boolean');
      return undefined;
    }
    return value;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], options: { required?: boolean } = {}): T | undefined {
    const value = this.string(key, options);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) {
      this.violations.add(this.at(key), `must be one of ${allowed.join(', ')}`);
      return undefined;
    }
    return value as T;
  }

  object_(key: string, options: { required?: boolean } = {}): FieldReader | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) {
      if (options.required) this.violations.add(this.at(key), 'is required');
      return undefined;
    }
    if (!isObject(value)) {
      this.violations.add(this.at(key), 'must be an object');
      return undefined;
    }
    return new FieldReader(value, this.at(key), this.violations);
  }

  array(key: string, options: { required?: boolean; min?: number; max?: number } = {}): FieldReader[] | undefined {
    const value = this.object[key];
    if (value === undefined || value === null) {
      if (options.required) this.violations.add(this.at(key), 'is required');
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.violations.add(this.at(key), 'must be an array');
      return undefined;
    }
    if (options.min !== undefined && value.length < options.min) {
      this.violations.add(this.at(key), `must have at least ${options.min} element${options.min === 1 ? '' : 's'}`);
      return undefined;
    }
    if (options.max !== undefined && value.length > options.max) {
      this.violations.add(this.at(key), `must have at most ${options.max} elements`);
      return undefined;
    }
    const readers: FieldReader[] = [];
    value.forEach((element, index) => {
      const pointer = `${this.at(key)}/${index}`;
      if (!isObject(element)) this.violations.add(pointer, 'must be an object');
      else readers.push(new FieldReader(element, pointer, this.violations));
    });
    return readers;
  }

  /** Keys present that the schema does not know. */
  rejectUnknown(known: readonly string[]): void {
    for (const key of Object.keys(this.object)) {
      if (!known.includes(key)) this.violations.add(this.at(key), 'is not a known property');
    }
  }
}

/** Starts reading a request body (which must be a JSON object). */
export function readBody(body: unknown, violations: Violations): FieldReader | undefined {
  if (!isObject(body)) {
    violations.add('', 'the body must be a JSON object');
    return undefined;
  }
  return new FieldReader(body, '', violations);
}
