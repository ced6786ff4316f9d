import { resolve } from 'node:path';
import { FwDefinitionError } from '@fw/core';
import { expect } from 'chai';
import { parseStoreUrl, redactUrl } from './url.js';

function parseError(url: string): FwDefinitionError {
  try {
    parseStoreUrl(url, '/srv/app');
  } catch (error) {
    expect(error).to.be.instanceOf(FwDefinitionError);
    return error as FwDefinitionError;
  }
  throw new Error(`expected ${url} to be refused`);
}

describe('parseStoreUrl(url)', function () {
  describe('sqlite', function () {
    it('resolves a relative path against the working directory', function () {
      const parsed = parseStoreUrl('sqlite:data/app.db', '/srv/app');
      expect(parsed).to.include({ dialect: 'sqlite', client: 'better-sqlite3', memory: false });
      expect(parsed.connection).to.deep.equal({ filename: '/srv/app/data/app.db' });
    });

    it('takes ./ and ../ paths as relative', function () {
      expect(parseStoreUrl('sqlite:./app.db', '/srv/app').connection).to.deep.equal({ filename: '/srv/app/app.db' });
      expect(parseStoreUrl('sqlite:../shared/app.db', '/srv/app').connection).to.deep.equal({ filename: '/srv/shared/app.db' });
    });

    it('keeps an absolute path, with or without the empty authority', function () {
      expect(parseStoreUrl('sqlite:///var/lib/fw/app.db', '/srv/app').connection).to.deep.equal({ filename: '/var/lib/fw/app.db' });
      expect(parseStoreUrl('sqlite:/var/lib/fw/app.db', '/srv/app').connection).to.deep.equal({ filename: '/var/lib/fw/app.db' });
    });

    it('uses process.cwd() by default', function () {
      expect(parseStoreUrl('sqlite:x.db').connection).to.deep.equal({ filename: resolve(process.cwd(), 'x.db') });
    });

    it('opens a private in-memory database for sqlite::memory:', function () {
      const parsed = parseStoreUrl('sqlite::memory:');
      expect(parsed).to.include({ dialect: 'sqlite', memory: true });
      expect(parsed.connection).to.deep.equal({ filename: ':memory:' });
    });

    it('refuses a host, an empty path, a directory and a query string', function () {
      expect(parseError('sqlite://host/app.db').message).to.match(/no host/);
      expect(parseError('sqlite:').message).to.match(/names no SQLite database file/);
      expect(parseError('sqlite:data/').message).to.match(/names no SQLite database file/);
      expect(parseError('sqlite:app.db?mode=ro').message).to.match(/no query string/);
    });
  });

  describe('postgres', function () {
    it('passes postgres:// and postgresql:// URLs to pg unchanged', function () {
      for (const url of ['postgres://app:pw@db:5432/fw', 'postgresql://app@db/fw?sslmode=require']) {
        const parsed = parseStoreUrl(url);
        expect(parsed).to.include({ dialect: 'postgres', client: 'pg', connection: url });
      }
    });

    it('refuses a URL without a database or host', function () {
      expect(parseError('postgres://app:pw@db:5432').message).to.match(/must name one database/);
      expect(parseError('postgres://app:pw@db:5432/').message).to.match(/must name one database/);
      expect(parseError('postgres:///fw').message).to.match(/names no host/);
    });
  });

  describe('mysql', function () {
    it('takes mysql:// and mariadb:// apart for mysql2, decoding the credentials', function () {
      for (const scheme of ['mysql', 'mariadb']) {
        const parsed = parseStoreUrl(`${scheme}://fw%20app:p%40ss%2Fw@db.internal:3307/fw`);
        expect(parsed).to.include({ dialect: 'mysql', client: 'mysql2' });
        expect(parsed.connection).to.deep.equal({ host: 'db.internal', port: 3307, user: 'fw app', password: 'p@ss/w', database: 'fw', multipleStatements: true });
      }
    });

    it('defaults the port, allows no password and turns TLS on with ?ssl=true', function () {
      expect(parseStoreUrl('mysql://root@127.0.0.1/test').connection).to.deep.equal({ host: '127.0.0.1', port: 3306, user: 'root', database: 'test', multipleStatements: true });
      expect(parseStoreUrl('mysql://root@127.0.0.1/test?multipleStatements=false').connection).to.include({ multipleStatements: false });
      expect(parseStoreUrl('mysql://root@db/test?ssl=true').connection).to.deep.include({ ssl: {} });
    });

    it('unbrackets an IPv6 host', function () {
      expect(parseStoreUrl('mysql://root@[::1]:3306/test').connection).to.include({ host: '::1' });
    });

    it('refuses unknown query parameters and a missing user', function () {
      expect(parseError('mysql://root@db/test?charset=latin1').message).to.match(/unknown query parameter "charset"/);
      expect(parseError('mysql://db/test').message).to.match(/names no user/);
      expect(parseError('mysql://root@db/test?ssl=maybe').message).to.match(/ssl must be true or false/);
    });
  });

  describe('mssql', function () {
    it('builds a tedious connection: encrypted and certificate-checked by default', function () {
      const parsed = parseStoreUrl('mssql://sa:Str0ng%21@sql.internal:14330/fw');
      expect(parsed).to.include({ dialect: 'mssql', client: 'mssql' });
      expect(parsed.connection).to.deep.equal({
        server: 'sql.internal',
        port: 14330,
        user: 'sa',
        password: 'Str0ng!',
        database: 'fw',
        options: { encrypt: true, trustServerCertificate: false },
      });
    });

    it('honours ?encrypt=false and ?trustServerCertificate=true, with port 1433 by default', function () {
      const parsed = parseStoreUrl('mssql://sa:pw@localhost/fw?encrypt=false&trustServerCertificate=true');
      expect(parsed.connection).to.deep.include({ port: 1433, options: { encrypt: false, trustServerCertificate: true } });
    });

    it('refuses unknown parameters', function () {
      expect(parseError('mssql://sa:pw@localhost/fw?instanceName=X').message).to.match(/unknown query parameter "instanceName"/);
    });
  });

  describe('bad URLs', function () {
    it('names the key store.url and the supported forms', function () {
      const error = parseError('redis://localhost:6379/0');
      expect(error.key).to.equal('store.url');
      expect(error.message).to.match(/^store\.url: .*unsupported scheme "redis:"/);
      expect(error.message).to.include('sqlite::memory:').and.include('mssql://');
    });

    it('refuses empty, scheme-less and unparsable URLs', function () {
      expect(parseError('').message).to.match(/non-empty database URL/);
      expect(parseError('data/app.db').message).to.match(/has no scheme/);
      expect(parseError('postgres://app:pw@db:notaport/fw').message).to.match(/not a valid URL/);
    });

    it('never shows the password, even in a URL that does not parse', function () {
      for (const url of ['postgres://app:hunter2@db:notaport/fw', 'mysql://app:hunter2@db/fw?bogus=1', 'ftp://app:hunter2@host/x', 'mssql://sa:hunter2@host']) {
        const error = parseError(url);
        expect(error.message).not.to.include('hunter2');
        expect(error.message).to.include('***');
      }
    });
  });
});

describe('redactUrl(url)', function () {
  it('replaces the password and keeps the rest', function () {
    expect(redactUrl('postgres://app:s3cret@db:5432/fw?sslmode=require')).to.equal('postgres://app:***@db:5432/fw?sslmode=require');
  });

  it('hides a password holding a raw @ whole', function () {
    expect(redactUrl('mysql://app:p@ss@db/fw')).to.equal('mysql://app:***@db/fw');
  });

  it('hides password query parameters and leaves URLs without a password alone', function () {
    expect(redactUrl('x://db/fw?user=a&password=s3cret')).to.equal('x://db/fw?user=a&password=***');
    expect(redactUrl('postgres://app@db/fw')).to.equal('postgres://app@db/fw');
    expect(redactUrl('sqlite:data/app.db')).to.equal('sqlite:data/app.db');
  });
});
