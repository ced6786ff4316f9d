// The row drawer's title: "Add Book", "Edit Book #3", "Copy Book #3", "Book #3" when the model
// declares a singular title (`singularTitle`); else "Books: new entry", "Books: edit #3",
// "Books: copy of #3", "Books #3" — never "Add Books".
import type { MessageKey } from '../i18n';
import type { ModelView } from '../types';

/** What the drawer shows. */
export type DrawerState = { mode: 'add' } | { mode: 'edit' | 'copy' | 'details'; id: number };

type T = (key: MessageKey, values?: Record<string, string | number>) => string;

/** The title of the drawer showing `state` for `model`. */
export function drawerTitle(t: T, model: Pick<ModelView, 'title' | 'singularTitle'>, state: DrawerState): string {
  const one = model.singularTitle;
  const id = state.mode === 'add' ? '' : state.id;
  if (one) {
    const key: MessageKey = state.mode === 'add' ? 'form.addTitle' : state.mode === 'edit' ? 'form.editTitle' : state.mode === 'copy' ? 'form.copyTitle' : 'form.detailsTitle';
    return t(key, { model: one, id });
  }
  const key: MessageKey =
    state.mode === 'add' ? 'form.addTitlePlural' : state.mode === 'edit' ? 'form.editTitlePlural' : state.mode === 'copy' ? 'form.copyTitlePlural' : 'form.detailsTitle';
  return t(key, { model: model.title, id });
}
