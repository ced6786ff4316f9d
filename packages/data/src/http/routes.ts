// Every route of fwData, as declarations (issue 22 §5): fwData mounts them, and an OpenAPI
// generator describes them without a running service (`describeRoutes(dataRoutes, models)` of
// @fw/http, with `dataSchemas(models)` as the component schemas they point at).
import { attachmentRoutes } from './attachment-routes.js';
import type { DataRoute } from './data-route.js';
import {
  addRoute,
  buildRoute,
  copyRoute,
  deleteRoute,
  detailsRoute,
  printCssRoute,
  printJsRoute,
  printRoute,
  referenceRoute,
  tableRoute,
  updateCellRoute,
  updateRoute,
} from './model-routes.js';
import { powerRouteList } from './power-routes.js';
import { transferRoutes } from './transfer-routes.js';

/**
 * The data routes in the order fwData mounts them. The order matters where two paths match one
 * URL: `GET /data/export/Book` is the export, so the one-row route `GET /data/{fw}/{id}` comes last.
 */
export const dataRoutes: readonly DataRoute[] = [
  buildRoute,
  tableRoute,
  referenceRoute,
  ...transferRoutes,
  ...attachmentRoutes,
  ...powerRouteList,
  printCssRoute,
  printJsRoute,
  printRoute,
  addRoute,
  updateRoute,
  updateCellRoute,
  deleteRoute,
  copyRoute,
  detailsRoute,
];
