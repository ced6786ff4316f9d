import type { Middleware } from 'koa';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FwDefinitionError, FwError, isFwError, loadConfig, type FwConfig } from '@fw/core';
import type { DataService, FwDataMiddleware } from '@fw/data';
import { defineRoute, readJsonBody, renderError, requireAuthState, routeMiddleware, shape, type FwRoute, type JsonSchema } from '@fw/http';
import { Authenticator, type FwRequestState } from '@fw/login';
import type { FwStore } from '@fw/store';
import type { FwTokenService } from '@fw/token';
import { FwAiToolbox, type ToolActor } from './toolbox.js';

/** Options of {@link fwMcp}. */
export interface FwMcpOptions {
  /** The data service the tools go through: `fwData(...).service`, or a `DataService`. */
  data: DataService | FwDataMiddleware;
  /** Resolves the caller's token (the `token` header or `Authorization: Bearer`). */
  tokens: FwTokenService;
  /** The store holding users. */
  store: FwStore;
  /** Configuration (`fw-app.apiPrefix`). @default loadConfig() */
  config?: FwConfig;
  /** The route, under the prefix. @default '/ai/mcp' */
  path?: string;
  /** Largest request body, bytes. @default 1 MiB */
  bodyLimit?: number;
  /** Server name MCP clients see. @default 'fw' */
  serverName?: string;
}

/** What a tool call answers when the tool fails: an MCP tool error carrying Fw's error. */
function toolError(error: unknown, onUnexpected: (error: unknown) => void): CallToolResult {
  // Unexpected errors are reported to the app (app.on('error')); the client learns nothing of them.
  if (!isFwError(error) || error.status >= 500) onUnexpected(error);
  const fw = isFwError(error) ? error : new FwError('INTERNAL');
  return {
    isError: true,
    content: [{ type: 'text', text: fw.message }],
    structuredContent: { ...fw.toBody() },
  };
}

/** What the MCP route needs: the toolbox its tools go through, and the server name clients see. */
export interface McpRouteServices {
  toolbox: FwAiToolbox;
  serverName: string;
}

/** The MCP route: the caller is the signed-in state (401 without one); every tool acts as that user. */
export type McpRoute = FwRoute<McpRouteServices, unknown, undefined, FwRequestState>;

function serverFor(services: McpRouteServices, actor: ToolActor, onUnexpected: (error: unknown) => void): Server {
  const { toolbox } = services;
  const server = new Server({ name: services.serverName, version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolbox.definitions().map((t) => ({ ...t })) }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      const result = await toolbox.call(request.params.name, request.params.arguments ?? {}, actor);
      const structured = typeof result === 'object' && result !== null && !Array.isArray(result) ? (result as Record<string, unknown>) : { result };
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: structured };
    } catch (error) {
      return toolError(error, onUnexpected);
    }
  });
  return server;
}

const MESSAGE: JsonSchema = {
  type: 'object',
  description: 'A JSON-RPC 2.0 message of the Model Context Protocol',
  properties: { jsonrpc: { const: '2.0' } },
  required: ['jsonrpc'],
};
const MESSAGES: JsonSchema = { anyOf: [MESSAGE, { type: 'array', items: MESSAGE }] };

/**
 * The body of `POST /ai/mcp`: any JSON, read (and limited) by Fw, then handed to the MCP transport
 * as it is. The transport checks that it is JSON-RPC and answers a JSON-RPC error when not.
 */
const MCP_BODY = shape<unknown>(MESSAGES, (value) => value);

/** `POST /ai/mcp`: JSON-RPC messages to the AI toolbox, acting as the caller. */
const MCP_ROUTE: McpRoute = defineRoute<McpRouteServices, unknown, undefined, FwRequestState>({
  method: 'post',
  path: '/ai/mcp',
  operationId: 'mcp',
  tags: ['ai'],
  summary: 'The AI toolbox over MCP (streamable HTTP, stateless, JSON answers)',
  description: 'Send `Accept: application/json, text/event-stream`. Tool failures are MCP tool errors carrying the Fw error in `structuredContent`.',
  security: 'token',
  body: { shape: MCP_BODY, required: true },
  answers: {
    200: { description: 'The JSON-RPC answer', json: MESSAGES },
    202: { description: 'A notification or answer was accepted; no body' },
    400: {
      description: 'A body that is not JSON (the Fw error body), or not a JSON-RPC message (a JSON-RPC error)',
      json: { anyOf: [{ $ref: '#/components/schemas/FwError' }, MESSAGE] },
    },
    406: { description: 'The Accept header lacks application/json or text/event-stream', json: MESSAGE },
  },
  errors: [401, 413, 415],
  async handle(ctx, { deps, who, body }) {
    const actor: ToolActor = { user: who.user, ip: ctx.ip || null, token: who.token, ...(who.grantsVersion !== undefined ? { grantsVersion: who.grantsVersion } : {}) };
    const server = serverFor(deps, actor, (error) => ctx.app.emit('error', error, ctx));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    // The transport writes the answer itself; the Fw API headers set before it are kept.
    ctx.respond = false;
    try {
      await transport.handleRequest(ctx.req, ctx.res, body);
    } finally {
      ctx.res.on('close', () => {
        void transport.close();
        void server.close();
      });
    }
  },
});

/**
 * The route of `fwMcp`, its contract beside its handler: `POST /ai/mcp`, where `fwMcp` serves it
 * by default (its `path` option moves it).
 */
export const mcpRoutes: readonly McpRoute[] = [MCP_ROUTE];

/**
 * The AI toolbox over MCP (streamable HTTP, stateless, JSON responses) at `POST /fw-api/ai/mcp`.
 * The caller is authenticated like the HTTP API (token header or Bearer; an open-API key is first
 * exchanged for a token at `POST /fw-api/open-api/token`), and every tool acts as that user. A
 * refused tool (AI gate, permissions, validation) is an MCP tool error with the reason, not a
 * transport failure; a missing or dead token is refused with 401 before any MCP message is read.
 *
 * @example
 * const data = fwData({ store, tokens, registry });
 * app.use(data);
 * app.use(fwMcp({ data, tokens, store }));
 */
export function fwMcp(options: FwMcpOptions): Middleware {
  const data = (options?.data && 'service' in options.data ? options.data.service : options?.data) as DataService | undefined;
  if (!data || typeof data.query !== 'function') throw new FwDefinitionError('fwMcp.data', 'pass fwData(...) or its DataService');
  if (!options.tokens || typeof options.tokens.resolve !== 'function') throw new FwDefinitionError('fwMcp.tokens', 'an FwTokenService is required');
  if (!options.store?.users) throw new FwDefinitionError('fwMcp.store', 'an FwStore is required');
  const config = options.config ?? loadConfig();
  const path = `${config['fw-app.apiPrefix']}${options.path ?? '/ai/mcp'}`;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) throw new FwDefinitionError('fwMcp.path', `must be a path, got ${JSON.stringify(options.path)}`);
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const authenticator = new Authenticator({ tokens: options.tokens, store: options.store });
  const services: McpRouteServices = { toolbox: new FwAiToolbox(data), serverName: options.serverName ?? 'fw' };
  const route = routeMiddleware(MCP_ROUTE, {
    deps: services,
    readJson: (ctx) => readJsonBody(ctx, { limit: bodyLimit }),
    who: (ctx) => requireAuthState(ctx, (c) => authenticator.authenticate(c)),
  });

  return async function fwMcp(ctx, next) {
    if (ctx.path !== path) return next();
    // Stateless: no server-sent event stream to open, no session to delete.
    if (ctx.method !== 'POST') {
      renderError(ctx, new FwError('METHOD_NOT_ALLOWED', 'This MCP endpoint is stateless: send JSON-RPC messages with POST', { headers: { Allow: 'POST' } }));
      return;
    }
    await route(ctx, next);
  };
}
