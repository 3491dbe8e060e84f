import type { ProblemSlug } from './problems.js';

/**
 * The one error model. Domain code throws `AppError`; each API surface turns
 * it into its own format (RFC 9457 problem details on `/v2.2`), and GraphQL
 * carries it in `extensions` (`code`, `type`, `problem`, `status`, `errors`),
 * from which the facade rebuilds the same AppError. Nothing else reaches a
 * client.
 */
export type ErrorType =
  | 'invalid_data'
  | 'unauthorized'
  | 'not_allowed'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'unavailable'
  | 'unexpected';

const HTTP_STATUS: Record<ErrorType, number> = {
  invalid_data: 400,
  unauthorized: 401,
  not_allowed: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  unavailable: 503,
  unexpected: 500,
};

/** GraphQL `extensions.code` for each type (Apollo's conventional names where one exists). */
const GRAPHQL_CODE: Record<ErrorType, string> = {
  invalid_data: 'BAD_USER_INPUT',
  unauthorized: 'UNAUTHENTICATED',
  not_allowed: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'METHOD_NOT_ALLOWED',
  conflict: 'CONFLICT',
  payload_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  unprocessable: 'UNPROCESSABLE',
  rate_limited: 'RATE_LIMITED',
  unavailable: 'SERVICE_UNAVAILABLE',
  unexpected: 'INTERNAL_SERVER_ERROR',
};

export const QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX';

/**
 * GraphQL error codes whose message is meant for the client: the domain's
 * (but the unexpected), GraphQL's own request errors, and the depth/cost
 * limit. The formatters mask every other error.
 */
export const PUBLIC_GRAPHQL_CODES: ReadonlySet<string> = new Set([
  ...Object.values(GRAPHQL_CODE).filter((code) => code !== GRAPHQL_CODE.unexpected),
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  QUERY_TOO_COMPLEX,
]);

export function isErrorType(value: unknown): value is ErrorType {
  return typeof value === 'string' && Object.hasOwn(HTTP_STATUS, value);
}

/** One invalid input: a JSON pointer into the body, or `query#name` / `header#name`. */
export interface FieldError {
  pointer: string;
  detail: string;
}

export interface AppErrorOptions {
  errors?: FieldError[];
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly type: ErrorType;
  /** Stable machine slug, also the problem type `/problems/<slug>`. */
  readonly slug: ProblemSlug;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(type: ErrorType, slug: ProblemSlug, detail: string, options: AppErrorOptions = {}) {
    super(detail);
    this.name = 'AppError';
    this.type = type;
    this.slug = slug;
    this.errors = options.errors;
    this.headers = options.headers;
  }

  get status(): number {
    return HTTP_STATUS[this.type];
  }

  /** graphql-js copies an original error's `extensions` onto the GraphQLError it wraps it in. */
  get extensions(): Record<string, unknown> {
    // `headers` (e.g. Retry-After of a 429) travel with the error so the REST facade can send them.
    return {
      code: GRAPHQL_CODE[this.type],
      type: this.type,
      problem: this.slug,
      status: this.status,
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.headers ? { headers: this.headers } : {}),
    };
  }
}

export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

export const invalid = (slug: ProblemSlug, detail: string, errors?: FieldError[]) =>
  new AppError('invalid_data', slug, detail, { errors });
export const notFound = (slug: ProblemSlug, detail: string) => new AppError('not_found', slug, detail);
export const conflict = (slug: ProblemSlug, detail: string) => new AppError('conflict', slug, detail);

/** The masked form of anything unexpected. */
export const internalError = () => new AppError('unexpected', 'internal-error', INTERNAL_ERROR_MESSAGE);

/**
 * SQLSTATE classes 08 (connection exception) and 57P (the server shutting down, crashed or starting
 * up: a failover's `57P01`-`57P03`), 57014 (a statement cancelled, by the statement timeout or by an
 * operator), 25006 (a write on a read-only node: a connection that reached a standby or a demoted
 * primary during a failover) and 53300 (too many connections: every process reconnecting at once
 * after one).
 */
const UNAVAILABLE_SQLSTATE = /^(08|57P|57014$|25006$|53300$)/;
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * Whether an error, or one it wraps (`cause`, GraphQL's `originalError`), says the database could not be
 * reached, went away mid-request, or could not serve it in time (no pool connection within
 * `DB_ACQUIRE_TIMEOUT_MS`, a statement past `DB_STATEMENT_TIMEOUT_MS`): nothing of the request was
 * acknowledged, and a retry (with the same Idempotency-Key) is the answer, so the client gets 503 rather than 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code))) return true;
    if (typeof message === 'string' && /^Connection terminated|^terminating connection|Client has encountered a connection error|^timeout exceeded when trying to connect/.test(message)) return true;
    e = (e as { originalError?: unknown; cause?: unknown }).originalError ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

export const databaseUnavailable = () =>
  new AppError('unavailable', 'service-unavailable', 'The database is unreachable; the service is recovering. Retry shortly (with the same Idempotency-Key).', {
    headers: { 'Retry-After': '2' },
  });
