// The model the cell-edit benchmarks write to.
import { defineModel } from '@fw/core';

export const Task = defineModel({
  name: 'Task',
  table: 'bench_task',
  // Imports too: the bulk-edit bench times an import and its undo.
  power: { importable: true },
  fields: {
    subject: { edit: { notNull: true }, rules: [{ type: 'length', max: 200 }] },
    note: { rules: [{ type: 'length', max: 500 }] },
    startDate: { edit: { type: 'DATE' } },
    endDate: { edit: { type: 'DATE' } },
    done: { edit: { type: 'BOOLEAN' } },
  },
  rowRules: [{ name: 'endAfterStart', fields: ['startDate', 'endDate'], path: 'endDate', test: (r) => r.endDate == null || String(r.endDate) >= String(r.startDate) }],
});
