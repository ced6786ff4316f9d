// The component schemas of the data routes: per model its row, add, update, cell and copy bodies,
// table query and page (model-schemas.ts); and the schemas every description shares (the error
// body, power, ids, attachments, reference pages: shared-schemas.ts), built from the fields'
// schemas (field-schemas.ts). The route declarations (routes.ts and its neighbours) point at them
// by name; `dataSchemas` gives them to an OpenAPI generator.
import type { ModelDefinition } from '@fw/core';
import type { JsonSchema } from '@fw/http';
import { modelSchemas } from './model-schemas.js';
import { sharedSchemas } from './shared-schemas.js';

export { modelSchemas } from './model-schemas.js';
export { sharedSchemas } from './shared-schemas.js';

/** The component schemas the data routes' descriptions point at: the shared ones, then each model's. */
export function dataSchemas(models: readonly ModelDefinition[]): Record<string, JsonSchema> {
  const schemas = sharedSchemas();
  for (const model of models) Object.assign(schemas, modelSchemas(model));
  return schemas;
}
