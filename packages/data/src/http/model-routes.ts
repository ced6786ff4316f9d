// The model routes of fwData, each declared with its contract beside its handler (issue 22 §5):
// the UI's schema, the table query, a reference field's candidates, one row, add, edit, cell edit,
// delete, copy, and the print page with its stylesheet and script. The handlers are thin: the
// mount has checked the caller, the gate and the body by the time they run.
import { FwError } from '@fw/core';
import { methodNotAllowed } from '@fw/http';
import { ADD_BODY, CELL_BODY, COPY_BODY, DELETE_BODY, REFERENCE_BODY, TABLE_BODY, UPDATE_BODY, type ReferenceScope } from '../bodies.js';
import { referenceOf } from '../read/references.js';
import { ADD_GATE, BUILD_GATE, COPY_GATE, DELETE_GATE, DETAILS_GATE, EDIT_GATE, PRINT_GATE, QUERY_GATE, REFERENCE_GATE } from '../gates.js';
import { rowId } from '../read/row-keys.js';
import { PRINT_CSS, PRINT_JS } from './print.js';
import { cellFields, ref, referenceFields } from './schemas.js';
import { ID_PARAM, IF_MATCH_PARAM, closedObject, dataRoute, ifMatch, type DataRoute } from './data-route.js';

/** Path segments of the data routes: a model of one of these names would be shadowed. */
export const RESERVED = new Set(['table', 'export', 'import', 'import-template', 'print', 'modify', 'upload', 'file', 'trash', 'events', 'presence']);

const rowAnswer = (description: string) => ({ description, json: (model: { name: string }) => ref(`${model.name}Row`) });

export const buildRoute = dataRoute({
  method: 'get',
  path: '/build/{fw}',
  operationId: 'build',
  summary: (model) => `The ${model.name} model for a UI, and the caller's power on it`,
  security: 'token',
  gate: BUILD_GATE,
  perModel: { describedFor: (model) => BUILD_GATE.allows(model.power) },
  answers: { 200: { description: 'The model and power', json: closedObject({ model: ref('FwModelView'), power: ref('FwPower') }) } },
  errors: [401, 403],
  handle: (_ctx, { deps, scope }) => deps.service.schemaOf(scope),
});

export const tableRoute = dataRoute({
  method: 'post',
  path: '/data/table/{fw}',
  operationId: 'query',
  summary: (model) => `One page of the ${model.name} rows the caller may see`,
  security: 'token',
  gate: QUERY_GATE,
  perModel: { describedFor: (model) => QUERY_GATE.allows(model.power) },
  body: { shape: TABLE_BODY, required: false },
  answers: { 200: { description: 'The page', json: (model) => ref(`${model.name}Page`) } },
  errors: [400, 401, 403, 413, 415],
  handle: (_ctx, { deps, scope, who, body }) => deps.service.tablePage(scope.model, who, body),
});

export const referenceRoute = dataRoute({
  method: 'post',
  path: '/data/reference/{fw}/{field}',
  operationId: 'reference',
  summary: 'The rows a reference or collection field may point at',
  security: 'token',
  gate: REFERENCE_GATE,
  perModel: { describedFor: (model) => referenceFields(model).length > 0 && REFERENCE_GATE.allows(model.power) },
  params: [{ name: 'field', in: 'path', schema: (model) => ({ enum: referenceFields(model) }) }],
  widen: (scope, params, deps): ReferenceScope => ({ ...scope, reference: referenceOf(deps.service.registry, scope.model, params.field ?? '') }),
  body: { shape: REFERENCE_BODY, required: false },
  answers: { 200: { description: 'The candidates', json: ref('FwReferencePage') } },
  errors: [400, 401, 403, 413, 415],
  handle: (_ctx, { deps, scope, who, body }) => deps.service.candidatesOf(who, (scope as ReferenceScope).reference, body),
});

// The print page's own stylesheet and script: linked rather than inline, so the page works under
// a `default-src 'self'` content security policy. Public: they hold nothing but layout.
const printAsset = (path: string, type: string, what: string, text: string): DataRoute =>
  dataRoute({
    method: 'get',
    path,
    operationId: `print${what === 'stylesheet' ? 'Css' : 'Js'}`,
    tags: ['data'],
    summary: `The print page's ${what}`,
    security: 'open',
    describedWhen: (models) => models.some((m) => m.power.print),
    answers: { 200: { description: `The ${what}`, content: { [type]: { type: 'string' } } } },
    errors: [],
    handle: (ctx) => {
      ctx.type = `${type}; charset=utf-8`;
      return text;
    },
  });

export const printCssRoute = printAsset('/data/print.css', 'text/css', 'stylesheet', PRINT_CSS);
export const printJsRoute = printAsset('/data/print.js', 'text/javascript', 'script', PRINT_JS);

export const printRoute = dataRoute({
  method: 'get',
  path: '/data/print/{fw}/{id}',
  operationId: 'print',
  summary: (model) => `A printable page of one ${model.name} row`,
  security: 'download',
  gate: PRINT_GATE,
  perModel: { describedFor: (model) => PRINT_GATE.allows(model.power) },
  params: [ID_PARAM],
  answers: { 200: { description: 'The page', content: { 'text/html': { type: 'string' } } } },
  errors: [400, 401, 403, 404],
  // Opened with `_token` in its URL: no Referer may carry it to the stylesheet, the script or a
  // link; and the page runs nothing but its own script, whatever a row's text holds. Every
  // answer says so, refusals too.
  before: (ctx, deps) => {
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Content-Security-Policy', deps.printPolicy);
  },
  handle: async (ctx, { deps, scope, who, params }) => {
    const html = await deps.service.printRow(scope.model, who, rowId(scope.model, params.id));
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    return html;
  },
});

export const addRoute = dataRoute({
  method: 'post',
  path: '/data/modify/{fw}',
  operationId: 'add',
  summary: (model) => `Add a ${model.name} row`,
  security: 'token',
  gate: ADD_GATE,
  perModel: { describedFor: (model) => ADD_GATE.allows(model.power) },
  body: { shape: ADD_BODY, required: true },
  answers: { 200: rowAnswer('The new row') },
  errors: [400, 401, 403, 409, 413, 415, 422],
  handle: (_ctx, { deps, scope, who, body }) => deps.service.addRow(scope.model, who, body),
});

export const updateRoute = dataRoute({
  method: 'post',
  path: '/data/modify/{fw}/update',
  operationId: 'update',
  summary: (model) => `Save a ${model.name} row from the edit form`,
  security: 'token',
  gate: EDIT_GATE,
  perModel: { describedFor: (model) => EDIT_GATE.allows(model.power) },
  params: [IF_MATCH_PARAM],
  body: { shape: UPDATE_BODY, required: true },
  answers: { 200: rowAnswer('The row as written') },
  errors: [400, 401, 403, 404, 409, 413, 415, 422],
  handle: (ctx, { deps, scope, who, body }) => deps.service.updateRow(scope.model, who, body, ifMatch(ctx)),
});

export const updateCellRoute = dataRoute({
  method: 'post',
  path: '/data/modify/{fw}/update-cell',
  operationId: 'updateCell',
  summary: 'Edit one cell; the whole row is validated',
  security: 'token',
  gate: EDIT_GATE,
  perModel: { describedFor: (model) => EDIT_GATE.allows(model.power) && cellFields(model).length > 0 },
  params: [IF_MATCH_PARAM],
  body: { shape: CELL_BODY, required: true },
  answers: { 200: rowAnswer('The row after the update') },
  errors: [400, 401, 403, 404, 409, 413, 415, 422],
  handle: (ctx, { deps, scope, who, body }) => deps.service.editCell(scope.model, who, body, ifMatch(ctx)),
});

export const deleteRoute = dataRoute({
  method: 'post',
  path: '/data/modify/{fw}/delete',
  operationId: 'delete',
  summary: (model) => `Delete ${model.name} rows, all or none`,
  security: 'token',
  gate: DELETE_GATE,
  perModel: { describedFor: (model) => DELETE_GATE.allows(model.power) },
  body: { shape: DELETE_BODY, required: true },
  answers: { 200: { description: 'How many were deleted, and the batch id their operate-log row and trash entries carry', json: closedObject({ deleted: { type: 'integer', minimum: 0 }, batch: { type: 'string', format: 'uuid' } }) } },
  errors: [400, 401, 403, 404, 409, 413, 415],
  handle: (_ctx, { deps, scope, who, body }) => deps.service.deleteRows(scope.model, who, body),
});

export const copyRoute = dataRoute({
  method: 'post',
  path: '/data/modify/{fw}/copy',
  operationId: 'copy',
  summary: (model) => `A new ${model.name} row from an existing one`,
  security: 'token',
  gate: COPY_GATE,
  perModel: { describedFor: (model) => COPY_GATE.allows(model.power) },
  body: { shape: COPY_BODY, required: true },
  answers: { 200: rowAnswer('The new row') },
  errors: [400, 401, 403, 404, 409, 413, 415, 422],
  handle: (_ctx, { deps, scope, who, body }) => deps.service.copyRow(scope.model, who, body),
});

export const detailsRoute = dataRoute({
  method: 'get',
  path: '/data/{fw}/{id}',
  operationId: 'details',
  summary: (model) => `One ${model.name} row`,
  security: 'token',
  gate: DETAILS_GATE,
  perModel: { describedFor: (model) => DETAILS_GATE.allows(model.power) },
  params: [ID_PARAM],
  answers: {
    200: { ...rowAnswer('The row'), headers: { ETag: { description: "The row's version; send it back as If-Match on update", schema: { type: 'string' } } } },
  },
  errors: [400, 401, 403, 404],
  // `GET /data/table/Book` is the table route asked with the wrong method, not a model "table".
  before: (ctx, deps) => {
    if (!RESERVED.has((ctx.params as Record<string, string>).fw ?? '')) return;
    const allow = deps.allowed(ctx);
    throw allow.length > 0 ? methodNotAllowed(ctx.method, allow) : new FwError('NOT_FOUND', `No data route ${ctx.path}`);
  },
  handle: async (ctx, { deps, scope, who, params }) => {
    const { row, version } = await deps.service.rowWithVersion(scope.model, who, rowId(scope.model, params.id));
    ctx.set('ETag', version);
    return row;
  },
});
