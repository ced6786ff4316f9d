import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { bookAndShared, demoOpenApi, routeTable, schemaExcerpt } from './openapi-print.js';

const page = join(dirname(fileURLToPath(import.meta.url)), '../../../docs/openapi.md');

/** The text between `<!-- generated:<name>:start -->` and its end marker. */
function section(text: string, name: string): string {
  const match = new RegExp(`<!-- generated:${name}:start -->\\n([\\s\\S]*?)<!-- generated:${name}:end -->`).exec(text);
  if (!match) throw new Error(`docs/openapi.md has no generated:${name} section`);
  return match[1]!;
}

describe('docs/openapi.md: the generated excerpts', () => {
  it('match the description the demo serves (regenerate them with the functions of openapi-print.ts)', () => {
    const doc = demoOpenApi();
    const text = readFileSync(page, 'utf8');
    expect(section(text, 'book-row')).to.equal(`\`\`\`json\n${schemaExcerpt((doc.components as { schemas: Record<string, Record<string, unknown>> }).schemas.BookRow!)}\n\`\`\`\n`);
    expect(section(text, 'book-routes')).to.equal(`${routeTable(doc, bookAndShared(doc))}\n`);
    // The excerpt shows Book's routes and the routes of no model, none of another model.
    expect(section(text, 'book-routes')).to.contain('`/data/table/Book`').and.contain('`/login`').and.not.contain('Author');
  });
});
