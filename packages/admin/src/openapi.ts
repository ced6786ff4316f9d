import { FwDefinitionError, loadConfig, type FwConfig, type ModelDefinition, type ModelRegistry } from '@fw/core';
import { bulkRoutes } from '@fw/data';
import { describeRoutes } from '@fw/http';
import {
  DOWNLOAD_SECURITY,
  NO_SECURITY,
  TOKEN_SECURITY,
  errorResponses,
  errors,
  jsonAnswer,
  jsonBody,
  loginPaths,
  mcpPaths,
  openApiPaths,
  pathParam,
  queryParam,
  securitySchemes,
  type Operation,
} from './openapi-http.js';
import { sessionPaths } from './openapi-sessions.js';
import { powerPaths } from './openapi-power.js';
import { prefPaths } from './openapi-prefs.js';
import { attachmentFields, cellFields, modelSchemas, ref, referenceFields, sharedSchemas, type JsonSchema } from './openapi-schemas.js';

/** The workbook content type of export, import and the import template. */
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Options of {@link openApiDocument}. */
export interface OpenApiDocumentOptions {
  /** The models served (built-in ones included, as `fwAdmin` registers them). */
  registry: ModelRegistry;
  /** Configuration: `fw-app.apiPrefix` becomes the server URL, `fw-app.title` the title. @default loadConfig() */
  config?: FwConfig;
  /** `info.version`: the version of your API. @default '0.1.0' */
  version?: string;
  /** Describe the login routes (`fwLogin` is mounted). @default true */
  login?: boolean;
  /** Describe the AI tools' MCP endpoint (`fwMcp` is mounted). @default true */
  ai?: boolean;
  /** Describe `GET /openapi.json` itself, open or behind a token. @default false (not described) */
  openapi?: 'open' | 'token' | false;
}

/** An OpenAPI 3.1 document, as plain JSON data. */
export type OpenApiDocument = Record<string, unknown> & { openapi: '3.1.0'; paths: Record<string, Record<string, Operation>> };

type Paths = Record<string, Record<string, Operation>>;

const idParam = pathParam('id', { type: 'integer', minimum: 1 }, 'The row id: a positive whole number');

/** The data routes of one model whose declared power lets them answer anything but 403. */
function modelPaths(model: ModelDefinition): Paths {
  const n = model.name;
  const p = model.power;
  const tags = [n];
  const paths: Paths = {};
  const add = (path: string, method: string, op: Operation) => {
    paths[path] = { ...paths[path], [method]: { tags, security: TOKEN_SECURITY, ...op } };
  };
  if (p.query || p.add || p.edit || p.delete || p.viewDetails) {
    add(`/build/${n}`, 'get', {
      operationId: `build${n}`,
      summary: `The ${n} model for a UI, and the caller's power on it`,
      responses: {
        200: jsonAnswer('The model and power', {
          type: 'object',
          properties: { model: ref('FwModelView'), power: ref('FwPower') },
          required: ['model', 'power'],
          additionalProperties: false,
        }),
        ...errors(401, 403),
      },
    });
  }
  if (p.query) {
    add(`/data/table/${n}`, 'post', {
      operationId: `query${n}`,
      summary: `One page of the ${n} rows the caller may see`,
      requestBody: jsonBody(ref(`${n}TableQuery`), false),
      responses: { 200: jsonAnswer('The page', ref(`${n}Page`)), ...errors(400, 401, 403, 413, 415) },
    });
  }
  const references = referenceFields(model);
  if (references.length > 0 && (p.add || p.edit || p.query)) {
    add(`/data/reference/${n}/{field}`, 'post', {
      operationId: `reference${n}`,
      summary: 'The rows a reference or collection field may point at',
      parameters: [pathParam('field', { enum: references })],
      requestBody: jsonBody(ref('FwReferenceQuery'), false),
      responses: { 200: jsonAnswer('The candidates', ref('FwReferencePage')), ...errors(400, 401, 403, 413, 415) },
    });
  }
  if (p.viewDetails || p.edit) {
    add(`/data/${n}/{id}`, 'get', {
      operationId: `details${n}`,
      summary: `One ${n} row`,
      parameters: [idParam],
      responses: {
        200: jsonAnswer('The row', ref(`${n}Row`), { ETag: { description: "The row's version; send it back as If-Match on update", schema: { type: 'string' } } }),
        ...errors(400, 401, 403, 404),
      },
    });
  }
  const ifMatch = {
    name: 'If-Match',
    in: 'header',
    required: false,
    schema: { type: 'string' },
    description: 'The ETag read with the row: 409 STALE_ROW when the row changed since',
  };
  if (p.add) {
    add(`/data/modify/${n}`, 'post', {
      operationId: `add${n}`,
      summary: `Add a ${n} row`,
      requestBody: jsonBody(ref(`${n}Input`)),
      responses: { 200: jsonAnswer('The new row', ref(`${n}Row`)), ...errors(400, 401, 403, 409, 413, 415, 422) },
    });
  }
  if (p.edit) {
    add(`/data/modify/${n}/update`, 'post', {
      operationId: `update${n}`,
      summary: `Save a ${n} row from the edit form`,
      parameters: [ifMatch],
      requestBody: jsonBody(ref(`${n}Update`)),
      responses: { 200: jsonAnswer('The row as written', ref(`${n}Row`)), ...errors(400, 401, 403, 404, 409, 413, 415, 422) },
    });
    if (cellFields(model).length > 0) {
      add(`/data/modify/${n}/update-cell`, 'post', {
        operationId: `updateCell${n}`,
        summary: 'Edit one cell; the whole row is validated',
        parameters: [ifMatch],
        requestBody: jsonBody(ref(`${n}Cell`)),
        responses: { 200: jsonAnswer('The row after the update', ref(`${n}Row`)), ...errors(400, 401, 403, 404, 409, 413, 415, 422) },
      });
    }
  }
  if (p.delete) {
    add(`/data/modify/${n}/delete`, 'post', {
      operationId: `delete${n}`,
      summary: `Delete ${n} rows, all or none`,
      requestBody: jsonBody({
        type: 'object',
        properties: { ids: { type: 'array', minItems: 1, maxItems: 1000, items: ref('FwId') } },
        required: ['ids'],
        additionalProperties: false,
      }),
      responses: {
        200: jsonAnswer('How many were deleted, and the batch id of the delete', {
          type: 'object',
          properties: { deleted: { type: 'integer', minimum: 0 }, batch: { type: 'string', format: 'uuid' } },
          required: ['deleted', 'batch'],
          additionalProperties: false,
        }),
        ...errors(400, 401, 403, 404, 409, 413, 415),
      },
    });
  }
  if (p.copy && p.add) {
    add(`/data/modify/${n}/copy`, 'post', {
      operationId: `copy${n}`,
      summary: `A new ${n} row from an existing one`,
      requestBody: jsonBody(ref(`${n}Copy`)),
      responses: { 200: jsonAnswer('The new row', ref(`${n}Row`)), ...errors(400, 401, 403, 404, 409, 413, 415, 422) },
    });
  }
  if (p.export) {
    add(`/data/export/${n}`, 'get', {
      operationId: `export${n}`,
      summary: `Download the visible ${n} rows as CSV or as a workbook`,
      security: DOWNLOAD_SECURITY,
      parameters: [
        queryParam('format', { enum: ['csv', 'xlsx'], default: 'csv' }, 'The file format'),
        queryParam('conditions', { type: 'string' }, 'The table query conditions, as JSON'),
        queryParam('sort', { type: 'string' }, 'field,desc;… or a JSON array of { field, order }'),
      ],
      responses: {
        200: {
          description: 'The file (Content-Disposition: attachment)',
          headers: { 'Content-Disposition': { schema: { type: 'string' } } },
          content: { 'text/csv': { schema: { type: 'string' } }, [XLSX_TYPE]: {} },
        },
        ...errors(400, 401, 403),
      },
    });
  }
  if (p.importable && (p.add || p.edit)) {
    const count = { type: 'integer', minimum: 0 };
    const counted = { type: 'object', properties: { imported: count, added: count, updated: count }, required: ['imported', 'added', 'updated'], additionalProperties: false };
    const modes = [...(p.add ? ['add'] : []), ...(p.edit ? ['update'] : []), 'upsert'];
    add(`/data/import/${n}`, 'post', {
      operationId: `import${n}`,
      summary: `Add or update the rows of a CSV file or a workbook, all or nothing`,
      description:
        'Errors name the row and column of every failing cell in `details[].path`, sorted by row, then column. `mode`: `add` (every row is new), `update` (rows matched by id; an unmatched row is an error), `upsert` (rows with an id update, rows without one are added).',
      parameters: [queryParam('mode', { enum: modes, default: modes[0] }, 'How rows are written: add, update (by id) or upsert')],
      requestBody: {
        required: true,
        content: {
          'text/csv': { schema: { type: 'string' } },
          'application/csv': { schema: { type: 'string' } },
          'text/plain': { schema: { type: 'string' } },
          [XLSX_TYPE]: {},
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: { file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'A .csv or .xlsx file' } },
              required: ['file'],
            },
          },
        },
      },
      responses: { 200: jsonAnswer('How many rows were written, added and updated', counted), ...errors(400, 401, 403, 409, 413, 415, 422) },
    });
    add(`/data/import-template/${n}`, 'get', {
      operationId: `importTemplate${n}`,
      summary: 'A file to fill in: the header row and one example row',
      parameters: [queryParam('format', { enum: ['xlsx', 'csv'], default: 'xlsx' }, 'The file format')],
      responses: {
        200: { description: 'The template (Content-Disposition: attachment)', content: { [XLSX_TYPE]: {}, 'text/csv': { schema: { type: 'string' } } } },
        ...errors(400, 401, 403),
      },
    });
  }
  if (p.print) {
    add(`/data/print/${n}/{id}`, 'get', {
      operationId: `print${n}`,
      summary: `A printable page of one ${n} row`,
      security: DOWNLOAD_SECURITY,
      parameters: [idParam],
      responses: { 200: { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } }, ...errors(400, 401, 403, 404) },
    });
  }
  const files = attachmentFields(model);
  if (files.length > 0) {
    if (p.add || p.edit) {
      add(`/data/upload/${n}/{field}`, 'post', {
        operationId: `upload${n}`,
        summary: 'Upload files for an attachment field; the answer goes into the row to save',
        parameters: [pathParam('field', { enum: files })],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: { type: 'object', properties: { file: { type: 'array', items: { type: 'string', contentMediaType: 'application/octet-stream' } } }, required: ['file'] },
            },
          },
        },
        responses: {
          200: jsonAnswer('The stored files, pending until a row saves them', {
            type: 'object',
            properties: { files: { type: 'array', items: ref('FwAttachment') } },
            required: ['files'],
            additionalProperties: false,
          }),
          ...errors(400, 401, 403, 413, 415, 429),
        },
      });
    }
    if (p.viewDetails || p.query || p.edit) {
      add(`/data/file/${n}/{field}/{rowId}/{fileId}`, 'get', {
        operationId: `file${n}`,
        summary: 'The bytes of one stored file of a row the caller may see',
        parameters: [
          pathParam('field', { enum: files }),
          pathParam('rowId', { type: 'integer', minimum: 1 }),
          pathParam('fileId', { type: 'string' }),
          queryParam('inline', { enum: ['1'] }, 'Images only: Content-Disposition inline'),
        ],
        responses: {
          200: {
            description: 'The file, with its sniffed Content-Type, Content-Disposition and Content-Security-Policy: sandbox',
            headers: { 'Content-Disposition': { schema: { type: 'string' } } },
            content: { '*/*': {} },
          },
          ...errors(401, 404),
        },
      });
    }
  }
  return paths;
}

/**
 * The OpenAPI 3.1 description of the Fw routes over a registry: the login routes, every data
 * route of every model (with its own row, body and query schemas: field types, required fields,
 * choices as enums, attachment values), the status codes each route answers with the Fw error
 * body, the token security schemes, and the AI tools' MCP endpoint. A model's route is described
 * only when the model's declared power lets it answer something other than 403 (an export of a
 * model without `power.export` is left out).
 *
 * Paths are relative to the one server, the API prefix (`/fw-api`).
 *
 * @example
 * const doc = openApiDocument({ registry, config });
 * writeFileSync('openapi.json', JSON.stringify(doc, null, 2));
 * @throws {FwDefinitionError} for a missing registry.
 */
export function openApiDocument(options: OpenApiDocumentOptions): OpenApiDocument {
  if (!options?.registry || typeof options.registry.list !== 'function') throw new FwDefinitionError('openApiDocument.registry', 'a model registry is required');
  const config = options.config ?? loadConfig();
  const models = options.registry.list();
  const schemas: Record<string, JsonSchema> = sharedSchemas();
  const paths: Paths = {};
  if (options.login !== false) Object.assign(paths, loginPaths(), sessionPaths(), prefPaths());
  for (const model of models) {
    Object.assign(schemas, modelSchemas(model));
    Object.assign(paths, modelPaths(model));
  }
  if (models.some((m) => m.power.print)) {
    const asset = (type: string, what: string): Operation => ({
      operationId: `print${what === 'stylesheet' ? 'Css' : 'Js'}`,
      tags: ['data'],
      summary: `The print page's ${what}`,
      security: NO_SECURITY,
      responses: { 200: { description: `The ${what}`, content: { [type]: { schema: { type: 'string' } } } }, ...errors() },
    });
    paths['/data/print.css'] = { get: asset('text/css', 'stylesheet') };
    paths['/data/print.js'] = { get: asset('text/javascript', 'script') };
  }
  Object.assign(paths, powerPaths(models.map((m) => m.name)));
  // Routes declared with their contracts (issue 22 §5) describe themselves: bulk edit, history, restore.
  for (const [path, methods] of Object.entries(describeRoutes(bulkRoutes, models))) paths[path] = { ...paths[path], ...(methods as Record<string, Operation>) };
  if (options.ai !== false) Object.assign(paths, mcpPaths());
  if (options.openapi) Object.assign(paths, openApiPaths(options.openapi));
  return {
    openapi: '3.1.0',
    info: {
      title: `${config['fw-app.title']} API`,
      version: options.version ?? '0.1.0',
      description: 'Generated by Fw from the model registry. Every answer carries Cache-Control: no-store and X-Content-Type-Options: nosniff.',
    },
    servers: [{ url: config['fw-app.apiPrefix'] }],
    security: TOKEN_SECURITY,
    tags: [{ name: 'login' }, ...models.map((m) => ({ name: m.name, description: m.title })), { name: 'data' }, { name: 'power' }, { name: 'ai' }, { name: 'openapi' }],
    paths,
    components: { schemas, responses: errorResponses(), securitySchemes: securitySchemes() },
  };
}
