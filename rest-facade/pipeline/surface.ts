import type { Request, Response } from 'express';
import type { Credentials, Principal } from '../../platform/api/auth.js';
import type { AppError } from '../../platform/errors.js';

/**
 * One REST API the facade serves (`/v2.2`, the Loop-compatible `/api/v1`):
 * the parts of the pipeline that differ between them. Routes, the check
 * order, the body rules and the GraphQL operations are shared (route.ts).
 */
export interface ApiSurface {
  readonly name: string;
  /**
   * Who is calling, and the API's own per-caller limits: throws the AppError
   * to answer (401, 429) when the request may not proceed.
   */
  authenticate(req: Request): Promise<{ principal: Principal; credentials: Credentials }>;
  /** Answers an error in the API's own format (problem details, Loop's envelopes). */
  sendError(req: Request, res: Response, error: AppError): void;
  readonly pagination: PaginationStyle;
  /**
   * Query parameters no route declares are ignored, as the real platforms
   * ignore them (decisions section 17); the request's log line names them.
   * An API may also name them in a response header, so a client developer
   * sees a misspelt filter.
   */
  readonly ignoredParametersHeader?: string;
  /**
   * A request no route matches, before the table answers 404 or 405: APIs
   * that authenticate before they route (Loop) check the credentials here and
   * may answer their own error (`knownPath`: some route has the path).
   */
  unrouted?(req: Request, knownPath: boolean): Promise<AppError | undefined>;
  /**
   * The 503 of a request the service cannot take or finish now (its deadline passed, the database
   * is away: server/http/request-deadline.ts), in the API's format; `Retry-After` is already set.
   */
  sendUnavailable(req: Request, res: Response, detail: string): void;
}

/** How an API reads the page a client asks for and shows the next one. */
export interface PaginationStyle {
  /** Query parameters it reads, accepted on every paginated route beside the route's own. */
  readonly params: readonly string[];
  read(req: Request, query: Record<string, string>): PageParams;
  /** Shows the next page: headers (`X-Page-Next`), or links in the body. */
  present(req: Request, res: Response, page: PageResult, body: unknown): unknown;
}

export interface PageParams {
  first: number;
  after: string | undefined;
  /** Paging backwards, for styles that link to previous pages. */
  before?: string | undefined;
  /** The time window a style's cursor carries (Loop's keeps the window its first page resolved). */
  window?: { from?: string; to?: string };
}

export interface PageResult {
  hasNextPage: boolean;
  endCursor: string | null;
  /** Lists that link both ways: whether rows precede the page, and the cursor of its first row. */
  hasPreviousPage?: boolean;
  startCursor?: string | null;
  /**
   * The list's parameters as the route resolved them (defaults filled in):
   * what links to other pages carry so they reproduce the same list.
   */
  parameters?: Record<string, string>;
}
