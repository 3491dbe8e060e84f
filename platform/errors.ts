/**
 * The one error model. Domain code throws `AppError`; the REST facade turns it
 * into RFC 9457 problem details and the GraphQL formatter into
 * `extensions.code`/`extensions.problem`. Nothing else reaches a client.
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
  | 'unexpected';

export const HTTP_STATUS: Record<ErrorType, number> = {
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
  unexpected: 500,
};

/** GraphQL `extensions.code` for each type (Apollo's conventional names where one exists). */
export const GRAPHQL_CODE: Record<ErrorType, string> = {
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
  unexpected: 'INTERNAL_SERVER_ERROR',
};

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
  readonly slug: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(type: ErrorType, slug: string, detail: string, options: AppErrorOptions = {}) {
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

export const invalid = (slug: string, detail: string, errors?: FieldError[]) =>
  new AppError('invalid_data', slug, detail, { errors });
export const notFound = (slug: string, detail: string) => new AppError('not_found', slug, detail);
export const conflict = (slug: string, detail: string) => new AppError('conflict', slug, detail);

/** Titles of the problem types, served as documentation at `/problems/<slug>`. */
export const PROBLEM_TITLES: Record<string, string> = {
  'invalid-json': 'The request body is not valid JSON',
  'validation-failed': 'The request is invalid',
  'unknown-parameter': 'Unknown query parameter',
  'invalid-page-size': 'Invalid page size',
  'invalid-cursor': 'Invalid pagination cursor',
  unauthorized: 'Authentication required',
  'scope-forbidden': 'The credentials lack a required scope',
  forbidden: 'Not allowed',
  'store-not-found': 'Store not found',
  'not-found': 'Resource not found',
  'route-not-found': 'No such route',
  'method-not-allowed': 'Method not allowed',
  'payload-too-large': 'Request body too large',
  'unsupported-media-type': 'Unsupported media type',
  'rate-limited': 'Too many requests',
  'internal-error': 'Internal server error',
  'order-not-found': 'Order not found',
  'return-not-found': 'Return not found',
  'quantity-not-returnable': 'Quantity not returnable',
  'idempotency-key-reused': 'Idempotency key reused with a different request',
  'idempotency-key-in-progress': 'A request with this idempotency key is in progress',
  'invalid-transition': 'Status transition not allowed',
  'account-not-found': 'Account not found',
  'location-not-found': 'Location not found',
  'product-not-found': 'Product not found',
  'inbound-shipment-not-found': 'Inbound shipment not found',
  'inventory-item-not-found': 'Inventory item not found',
  'insufficient-stock': 'Not enough stock',
  'quantity-exceeds-expected': 'More units reported than the shipment expects',
};

export function problemTitle(slug: string): string {
  return PROBLEM_TITLES[slug] ?? slug.replace(/-/g, ' ').replace(/^./, (c) => c.toUpperCase());
}
