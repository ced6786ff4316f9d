import type { Context, Middleware } from 'koa';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { FwDefinitionError, FwError, isFwError, loadConfig, type FwConfig } from '@fw/core';
import type { DataService, FwDataMiddleware } from '@fw/data';
import { readJsonBody, renderError, requireAuthState, setFwApiHeaders } from '@fw/http';
import { Authenticator } from '@fw/login';
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
  const toolbox = new FwAiToolbox(data);
  const name = options.serverName ?? 'fw';

  function serverFor(actor: ToolActor, onUnexpected: (error: unknown) => void): Server {
    const server = new Server({ name, version: '0.1.0' }, { capabilities: { tools: {} } });
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

  async function handle(ctx: Context): Promise<void> {
    if (ctx.method !== 'POST') {
      // Stateless: no server-sent event stream to open, no session to delete.
      throw new FwError('METHOD_NOT_ALLOWED', 'This MCP endpoint is stateless: send JSON-RPC messages with POST', { headers: { Allow: 'POST' } });
    }
    const state = await requireAuthState(ctx, (c) => authenticator.authenticate(c));
    const body = await readJsonBody(ctx, { limit: bodyLimit });
    const actor: ToolActor = { user: state.user, ip: ctx.ip || null, token: state.token, ...(state.grantsVersion !== undefined ? { grantsVersion: state.grantsVersion } : {}) };
    const server = serverFor(actor, (error) => ctx.app.emit('error', error, ctx));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    ctx.respond = false;
    try {
      await transport.handleRequest(ctx.req, ctx.res, body);
    } finally {
      ctx.res.on('close', () => {
        void transport.close();
        void server.close();
      });
    }
  }

  return async function fwMcp(ctx, next) {
    if (ctx.path !== path) return next();
    // Set before the transport writes the answer itself (ctx.respond = false): it keeps them.
    setFwApiHeaders(ctx);
    try {
      await handle(ctx);
    } catch (error) {
      renderError(ctx, error);
    }
  };
}
