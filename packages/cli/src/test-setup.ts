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
  // FW_CLI_TEST_INDEXES (issue 21 §3): a model for doctor's index advice; "declared" indexes status.
  ...(process.env.FW_CLI_TEST_INDEXES
    ? [
        defineModel({
          name: 'CliTicket',
          table: 'cli_ticket',
          fields: {
            status: { index: process.env.FW_CLI_TEST_INDEXES === 'declared' },
            score: { edit: { type: EditType.NUMBER }, views: { show: false } },
            note: { edit: { type: EditType.TEXTAREA } },
            secret: { edit: { type: EditType.PASSWORD } },
            internal: { views: { show: false, sortable: false } },
          },
        }),
      ]
    : []),
];
