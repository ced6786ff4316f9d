export { fwMcp, mcpRoutes } from './mcp.js';
export type { FwMcpOptions, McpRoute, McpRouteServices } from './mcp.js';
export { FwAiToolbox, TOOL_DEFINITIONS, AI_ROW_CAP } from './toolbox.js';
export type { ToolActor, ToolDefinition } from './toolbox.js';
