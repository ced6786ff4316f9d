// Issue 12: the example's provider file holds the client secret, so git must never pick it up,
// while the placeholder copy people start from stays committed.
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const example = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function ignored(path: string): boolean {
  // --no-index: the answer of the ignore rules alone, whether or not the file exists or is tracked.
  const result = spawnSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: example });
  if (result.status !== 0 && result.status !== 1) throw new Error(`git check-ignore failed: ${result.stderr.toString()}`);
  return result.status === 0;
}

describe('examples/oauth: the secrets file', () => {
  it('oauth-providers.json is ignored by git, here and wherever OAUTH_PROVIDERS_FILE points by default', () => {
    expect(ignored('oauth-providers.json')).to.equal(true);
    expect(ignored('../../oauth-providers.json')).to.equal(true);
  });

  it('the example file with placeholders is committed and holds no secret', () => {
    expect(ignored('oauth-providers.example.json')).to.equal(false);
    expect(execFileSync('git', ['ls-files', 'oauth-providers.example.json'], { cwd: example }).toString().trim()).to.equal('oauth-providers.example.json');
    expect(execFileSync('git', ['show', 'HEAD:./oauth-providers.example.json'], { cwd: example }).toString()).to.include('"client-secret": "<CLIENT_SECRET>"');
  });
});
