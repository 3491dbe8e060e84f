/** A command line the admin CLI cannot run: exit code 2 and the usage. */
export class UsageError extends Error {}

export function need(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || !value) throw new UsageError(`--${name} is required`);
  return value;
}
