import { pathToFileURL } from 'node:url';
import { openApiDocument, type OpenApiDocument } from '@fw/admin';
import { BUILTIN_MODELS, createRegistry, loadConfig } from '@fw/core';
import { demoModels } from './models.js';

/** The demo's OpenAPI description, as the running demo serves it; no database needed. */
export function demoOpenApi(): OpenApiDocument {
  return openApiDocument({ registry: createRegistry([...BUILTIN_MODELS, ...demoModels]), config: loadConfig({ values: { 'fw-app.title': 'Fw demo' } }), openapi: 'token' });
}

/** The routes of a description as a Markdown table: method, path, summary and the statuses it answers. */
export function routeTable(doc: OpenApiDocument, only?: (path: string) => boolean): string {
  const lines = ['| method | path (under `/fw-api`) | what | answers |', '|---|---|---|---|'];
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (only && !only(path)) continue;
    for (const [method, op] of Object.entries(ops)) {
      const { summary, responses } = op as { summary?: string; responses: Record<string, unknown> };
      lines.push(`| ${method.toUpperCase()} | \`${path}\` | ${summary ?? ''} | ${Object.keys(responses).join(', ')} |`);
    }
  }
  return lines.join('\n');
}

/** Paths of Book and the routes of no model: the excerpt docs/openapi.md shows. */
export function bookAndShared(doc: OpenApiDocument): (path: string) => boolean {
  const models = Object.keys(doc.paths)
    .filter((path) => path.startsWith('/build/'))
    .map((path) => path.slice('/build/'.length));
  return (path) => path.split('/').includes('Book') || !models.some((name) => path.split('/').includes(name));
}

/** A schema as JSON with one line per property, for reading in the docs. */
export function schemaExcerpt(schema: Record<string, unknown>): string {
  const { properties, ...rest } = schema as { properties?: Record<string, unknown> };
  const lines = Object.entries(rest).map(([key, value]) => `  ${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  if (properties) {
    const props = Object.entries(properties).map(([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)}`);
    lines.push(`  "properties": {\n${props.join(',\n')}\n  }`);
  }
  return `{\n${lines.join(',\n')}\n}`;
}

// `npm run openapi -w @fw/example-demo` prints the description; with `--markdown`, the route table.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const doc = demoOpenApi();
  const markdown = () => routeTable(doc, process.argv.includes('--book') ? bookAndShared(doc) : undefined);
  process.stdout.write(`${process.argv.includes('--markdown') ? markdown() : JSON.stringify(doc, null, 2)}\n`);
}
