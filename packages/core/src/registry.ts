import { FwDefinitionError } from './errors.js';
import { EditType, defineModel, isModelDefinition, type ModelDefinition, type ModelDefinitionInput } from './model.js';

/**
 * The models an app serves, by name. Registration checks each definition and the links between
 * them (references and collections must name registered models), so a bad definition stops the
 * app at start-up instead of failing a request later.
 */
export class ModelRegistry {
  readonly #models = new Map<string, ModelDefinition>();
  readonly #tables = new Map<string, string>();

  /**
   * Adds models. Plain inputs go through {@link defineModel} first.
   * @throws {FwDefinitionError} on a duplicate name or table, or a reference to an unknown model
   * among the models registered so far (call {@link ModelRegistry.check} after adding models that
   * refer to each other in several calls).
   */
  register(...models: Array<ModelDefinition | ModelDefinitionInput>): this {
    const added: ModelDefinition[] = [];
    for (const input of models) {
      // Definitions made with a typed row are registered as the general row type.
      const model = (isModelDefinition(input) ? input : defineModel(input as ModelDefinitionInput)) as ModelDefinition;
      if (this.#models.has(model.name)) throw new FwDefinitionError(model.name, 'a model with this name is already registered');
      const owner = this.#tables.get(model.table);
      if (owner !== undefined) throw new FwDefinitionError(`${model.name}.table`, `table ${model.table} already belongs to model ${owner}`);
      this.#models.set(model.name, model);
      this.#tables.set(model.table, model.name);
      added.push(model);
    }
    return this;
  }

  /**
   * Checks that every reference and collection names a registered model whose label field exists
   * and is a stored, non-secret field.
   * @throws {FwDefinitionError} naming the offending field.
   */
  check(): this {
    for (const model of this.#models.values()) {
      for (const field of Object.values(model.fields)) {
        const target = field.edit.reference?.model ?? field.edit.collection?.model;
        if (target === undefined) continue;
        const key = `${model.name}.fields.${field.name}.edit.${field.edit.reference ? 'reference' : 'collection'}.model`;
        const other = this.#models.get(target);
        if (!other) throw new FwDefinitionError(key, `names no registered model: ${JSON.stringify(target)}`);
        const label = field.edit.reference?.labelField ?? field.edit.collection?.labelField;
        const labelKey = `${model.name}.fields.${field.name}.edit.${field.edit.reference ? 'reference' : 'collection'}.labelField`;
        if (label !== undefined && !Object.hasOwn(other.fields, label)) throw new FwDefinitionError(labelKey, `model ${target} has no field ${label}`);
        // A label is shown to everyone who may pick a value: never a secret, and it must be a column to read.
        if (label !== undefined && (other.fields[label]!.edit.type === EditType.PASSWORD || !other.fields[label]!.stored)) {
          throw new FwDefinitionError(labelKey, `${target}.${label} cannot be a label (a PASSWORD or COLLECTION field)`);
        }
      }
    }
    return this;
  }

  /** The model named `name`, or undefined. */
  get(name: string): ModelDefinition | undefined {
    return this.#models.get(name);
  }

  /** True when a model of that name is registered. */
  has(name: string): boolean {
    return this.#models.has(name);
  }

  /** Every registered model, in registration order. */
  list(): ModelDefinition[] {
    return [...this.#models.values()];
  }

  /** How many models are registered. */
  get size(): number {
    return this.#models.size;
  }
}

/**
 * A registry holding `models`, checked as a whole.
 * @throws {FwDefinitionError} as {@link ModelRegistry.register} and {@link ModelRegistry.check}.
 */
export function createRegistry(models: Array<ModelDefinition | ModelDefinitionInput> = []): ModelRegistry {
  return new ModelRegistry().register(...models).check();
}
