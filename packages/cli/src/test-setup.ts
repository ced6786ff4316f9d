// The host models module the CLI tests pass with --models. FW_CLI_TEST_VARIANT=v2 adds a field, the
// way a host changes a model between releases.
import { EditType, defineModel } from '@fw/core';

const table = process.env.FW_CLI_TEST_TABLE ?? 'cli_book';

export const models = [
  defineModel({
    name: 'CliBook',
    table,
    fields: {
      title: { edit: { notNull: true } },
      ...(process.env.FW_CLI_TEST_VARIANT === 'v2' ? { pages: { edit: { type: EditType.NUMBER, integer: true } } } : {}),
    },
  }),
];
