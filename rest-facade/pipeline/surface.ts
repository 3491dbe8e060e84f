import type { Request, Response } from 'express';
import type { Credentials, Principal } from '../../platform/auth.js';
import type { AppError } from '../../platform/errors.js';
import type { PageParams, PageResult } from './route.js';

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
   * What a query parameter no route declares gets: `refuse` (400
   * `unknown-parameter`, so a misspelt filter never returns unfiltered data)
   * or `ignore` (APIs whose existing clients send parameters of their own).
   * Default `refuse`.
   */
  readonly unknownQueryParameters?: 'refuse' | 'ignore';
}

/** How an API reads the page a client asks for and shows the next one. */
export interface PaginationStyle {
  /** Query parameters it reads, accepted on every paginated route beside the route's own. */
  readonly params: readonly string[];
  read(req: Request, query: Record<string, string>): PageParams;
  /** Shows the next page: headers (`X-Page-Next`), or links in the body. */
  present(req: Request, res: Response, page: PageResult, body: unknown): unknown;
}
