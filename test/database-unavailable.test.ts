import { describe, expect, it } from 'vitest';
import { GraphQLError } from 'graphql';
import { isDatabaseUnavailable } from '../platform/errors.js';

/** Which failures mean "the database went away" (answered 503, retry) rather than a bug (masked 500). */
describe('database unavailability', () => {
  const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  it('recognises connection failures and a server shutting down, crashed or starting up', () => {
    expect(isDatabaseUnavailable(withCode('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('57P03', 'the database system is starting up'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('08006'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('ECONNREFUSED'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('recognises what a failover adds: a write on a read-only node, every process reconnecting at once', () => {
    expect(isDatabaseUnavailable(withCode('25006', 'cannot execute INSERT in a read-only transaction'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('57P02', 'terminating connection due to crash of another server process'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('53300', 'sorry, too many clients already'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('25001', 'there is already a transaction in progress'))).toBe(false);
  });

  it('recognises a database that cannot serve in time: no pool connection within the acquire timeout, a statement past its timeout', () => {
    const acquire = new Error('no connection from the returns pool (4 open, 9 waiting)', {
      cause: new Error('timeout exceeded when trying to connect'),
    });
    expect(isDatabaseUnavailable(acquire)).toBe(true);
    expect(isDatabaseUnavailable(withCode('57014', 'canceling statement due to statement timeout'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('57000'))).toBe(false);
  });

  it('looks through the errors that wrap it (cause, GraphQL originalError)', () => {
    const wrapped = new Error('batch failed', { cause: withCode('57P02') });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
    expect(isDatabaseUnavailable(new GraphQLError('boom', { originalError: wrapped }))).toBe(true);
  });

  it('leaves everything else alone: constraint violations, bugs, nothing at all', () => {
    expect(isDatabaseUnavailable(withCode('23505', 'duplicate key'))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('undefined is not a function'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
