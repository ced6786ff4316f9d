import { expect } from 'chai';
import { FwError } from './errors.js';
import { isUnavailableError, overloadedError, unavailableError } from './unavailable.js';

function coded(code: string, message = 'x'): Error {
  return Object.assign(new Error(message), { code });
}

describe('isUnavailableError(error)', () => {
  it('recognises the errors drivers give when the backend cannot be reached', () => {
    const outages = [
      coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      coded('3D000', 'database "app" does not exist'),
      coded('57P01', 'terminating connection due to administrator command'),
      coded('PROTOCOL_CONNECTION_LOST', 'Connection lost: The server closed the connection.'),
      coded('ER_BAD_DB_ERROR', "Unknown database 'app'"),
      // pg's connectionTimeoutMillis
      new Error('timeout expired'),
      // better-sqlite3: a file held by another process, a disk that failed or filled up
      coded('SQLITE_BUSY', 'database is locked'),
      coded('SQLITE_IOERR_SHORT_READ', 'disk I/O error'),
      coded('SQLITE_FULL', 'database or disk is full'),
      coded('SQLITE_READONLY_DBMOVED', 'attempt to write a readonly database'),
      Object.assign(new Error('Knex: Timeout acquiring a connection. The pool is probably full.'), { name: 'KnexTimeoutError' }),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      new Error('wrapped', { cause: coded('ECONNRESET') }),
      // ioredis Cluster: a cluster marked down, slots whose master does not answer, no node reachable
      new Error('Too many Cluster redirections. Last error: ReplyError: CLUSTERDOWN The cluster is down'),
      new Error('CLUSTERDOWN Hash slot not served'),
      new Error("Cluster isn't ready and enableOfflineQueue options is false"),
      new Error('Failed to refresh slots cache.'),
      new Error('None of startup nodes is available'),
      // A query past its limit (issue 19 §4): Fw's client-side timeout, PostgreSQL's
      // statement_timeout, MariaDB's max_statement_time (no code name in mysql2), MySQL's max_execution_time
      coded('FW_QUERY_TIMEOUT', 'The database did not answer within 5250 ms (queryTimeoutMs)'),
      coded('57014', 'canceling statement due to statement timeout'),
      Object.assign(new Error('Query execution was interrupted (max_statement_time exceeded)'), { errno: 1969 }),
      coded('ER_QUERY_TIMEOUT', 'Query execution was interrupted, maximum statement execution time exceeded'),
    ];
    expect(outages.filter((e) => !isUnavailableError(e)).map((e) => e.message)).to.deep.equal([]);
  });

  it('never calls an error about the request an outage', () => {
    const requestErrors = [
      coded('23505', 'duplicate key value violates unique constraint'),
      coded('22P02', 'invalid input syntax for type integer'),
      coded('22021', 'invalid byte sequence for encoding "UTF8": 0x00'),
      coded('ER_DUP_ENTRY', "Duplicate entry 'a' for key 'account'"),
      coded('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: fw_user.account'),
      coded('SQLITE_ERROR', 'no such column: x'),
      coded('SQLITE_BUSYNESS'),
      new Error('query timeout expired for the report'),
      new FwError('BAD_REQUEST'),
      new TypeError('Cannot read properties of undefined'),
      'a string',
      undefined,
    ];
    expect(requestErrors.filter((e) => isUnavailableError(e))).to.deep.equal([]);
  });

  it('answers 503 UNAVAILABLE with Retry-After, keeping the cause out of the message', () => {
    const error = unavailableError(coded('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.5:5432'));
    expect(error.status).to.equal(503);
    expect(error.code).to.equal('UNAVAILABLE');
    expect(error.headers?.['Retry-After']).to.match(/^\d+$/);
    expect(JSON.stringify(error.toBody())).to.not.contain('10.0.0.5');
    expect(isUnavailableError(error)).to.equal(true);
  });

  it('keeps an overload an overload: OVERLOADED with Retry-After, not rewritten as UNAVAILABLE (issue 19 §4)', () => {
    const overloaded = overloadedError(undefined, { retryAfter: 3 });
    expect(overloaded).to.include({ status: 503, code: 'OVERLOADED' });
    expect(overloaded.headers?.['Retry-After']).to.equal('3');
    expect(unavailableError(overloaded)).to.equal(overloaded);
    expect(unavailableError(new Error('wrapped', { cause: overloaded }))).to.equal(overloaded);
    expect(unavailableError(coded('ECONNRESET')).code).to.equal('UNAVAILABLE');
  });
});
