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
