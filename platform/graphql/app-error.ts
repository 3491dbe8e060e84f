import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { AppError, internalError, isErrorType, type FieldError } from '../errors.js';
import { isProblemSlug } from '../problems.js';

/**
 * Turns the GraphQL error a subgraph raised back into the AppError it started
 * as, from the `type` and `problem` it carries in `extensions`. A GraphQL
 * input error without them (a variable the schema refused) is a 400.
 */
export function appErrorFromGraphQL(error: GraphQLFormattedError | GraphQLError): AppError {
  const ext = error.extensions ?? {};
  if (isErrorType(ext.type) && typeof ext.problem === 'string' && isProblemSlug(ext.problem)) {
    return new AppError(ext.type, ext.problem, error.message, {
      errors: ext.errors as FieldError[] | undefined,
      headers: ext.headers as Record<string, string> | undefined,
    });
  }
  if (ext.code === 'BAD_USER_INPUT' || ext.code === 'GRAPHQL_VALIDATION_FAILED') return new AppError('invalid_data', 'validation-failed', error.message);
  return internalError();
}
