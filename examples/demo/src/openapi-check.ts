import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Response } from 'supertest';
import type TestAgent from 'supertest/lib/agent.js';

/** What one call sends. */
export interface Call {
  /** Path parameters of the template. */
  params?: Record<string, string | number>;
  query?: Record<string, string>;
  token?: string;
  /** A JSON body (checked against the request schema), or raw bytes with `type`. */
  body?: unknown;
  raw?: string | Buffer;
  type?: string;
  headers?: Record<string, string>;
  /** Multipart: files of field `file`. */
  files?: Array<{ name: string; bytes: Buffer; type: string }>;
  /** The request body breaks its schema on purpose (an error case). */
  invalidBody?: boolean;
  /** An answer that does not end (server-sent events): its first chunk is the body, then the connection is closed. */
  stream?: boolean;
}

type Operation = {
  operationId?: string;
  parameters?: Array<{ schema: { enum?: string[] } }>;
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses: Record<string, unknown>;
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: { responses: Record<string, unknown> } };

/**
 * Calls routes by their description's path template and checks every answer against it: the
 * status is one the operation lists, the content type one that status describes, and a JSON body
 * validates (JSON Schema 2020-12, Ajv) against its schema. Records what was called, so a test can
 * ask for the operations never called or never answered with success.
 */
export function openApiChecker(agent: TestAgent, document: object) {
  // Refs point into the document; give them a base Ajv can resolve from a separately added schema.
  const doc = JSON.parse(JSON.stringify(document).replaceAll('"#/components/', '"fw:doc#/components/')) as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'fw:doc', components: doc.components });
  const compiled = new Map<string, ValidateFunction>();
  const validator = (key: string, schema: object): ValidateFunction => {
    let fn = compiled.get(key);
    if (!fn) compiled.set(key, (fn = ajv.compile(schema)));
    return fn;
  };
  const called = new Map<string, Set<number>>();

  const resolve = (value: unknown): { content?: Record<string, { schema?: object }> } => {
    const r = value as { $ref?: string };
    if (r.$ref) return doc.components.responses[r.$ref.split('/').pop()!] as never;
    return value as never;
  };

  async function call(method: string, template: string, c: Call = {}): Promise<Response> {
    const op = doc.paths[template]?.[method];
    if (!op) throw new Error(`${method.toUpperCase()} ${template} is not in the description`);
    const key = `${method.toUpperCase()} ${template}`;
    const url = `/fw-api${template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(c.params?.[name] ?? `{${name}}`)))}`;
    if (url.includes('{')) throw new Error(`${key}: a path parameter is missing`);
    if (c.body !== undefined && !c.invalidBody) {
      const schema = op.requestBody?.content['application/json']?.schema;
      if (!schema) throw new Error(`${key} describes no JSON body`);
      const check = validator(`${key} request`, schema as object);
      if (!check(c.body)) throw new Error(`${key}: the test's own body breaks the request schema: ${ajv.errorsText(check.errors)}`);
    }
    let req = (agent as unknown as Record<string, (url: string) => ReturnType<TestAgent['get']>>)[method]!(url);
    if (c.query) req = req.query(c.query);
    if (c.token) req = req.set('token', c.token);
    for (const [name, value] of Object.entries(c.headers ?? {})) req = req.set(name, value);
    if (c.files) for (const f of c.files) req = req.attach('file', f.bytes, { filename: f.name, contentType: f.type });
    else if (c.raw !== undefined) req = req.set('Content-Type', c.type ?? 'application/octet-stream').send(c.raw);
    else if (c.body !== undefined) req = req.send(c.body as object);
    const res = await req.buffer(true).parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (c.stream) {
          done(null, Buffer.concat(chunks));
          (response as unknown as { destroy(): void }).destroy();
        }
      });
      response.on('end', () => done(null, Buffer.concat(chunks)));
    });
    const described = op.responses[String(res.status)];
    const where = `${key} answered ${res.status} ${String(res.headers['content-type'] ?? '')}`;
    if (!described) throw new Error(`${where}, a status the description does not list (${Object.keys(op.responses).join(', ')}): ${(res.body as Buffer).toString().slice(0, 300)}`);
    const content = resolve(described).content;
    const bytes = res.body as Buffer;
    if (!content) {
      if (bytes.length > 0) throw new Error(`${where} with a body the description does not have`);
    } else {
      const type = String(res.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim();
      const media = content[type] ?? content['*/*'];
      if (!media) throw new Error(`${where}: the description lists ${Object.keys(content).join(', ')}`);
      if (type === 'application/json') {
        const body: unknown = JSON.parse(bytes.toString('utf8'));
        (res as { json?: unknown }).json = body;
        const check = validator(`${key} ${res.status}`, media.schema ?? {});
        if (!check(body)) throw new Error(`${where}: the body breaks the schema: ${ajv.errorsText(check.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
      }
    }
    if (!called.has(key)) called.set(key, new Set());
    called.get(key)!.add(res.status);
    return res;
  }

  /** Every described operation, as `METHOD /template`. */
  const operations = (): string[] => Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));

  return {
    call,
    /** The JSON body of an answer `call` returned. */
    json: <T = Record<string, unknown>>(res: Response): T => (res as unknown as { json: T }).json,
    operations,
    /** Operations never called. */
    uncalled: () => operations().filter((op) => !called.has(op)),
    /** Operations never answered with a 2xx. */
    neverSucceeded: () => operations().filter((op) => ![...(called.get(op) ?? [])].some((s) => s >= 200 && s < 300)),
    /** The statuses each operation answered. */
    called,
    operationOf: (key: string): Operation => {
      const [method, path] = key.split(' ');
      return doc.paths[path!]![method!.toLowerCase()]!;
    },
  };
}
