// "Skip to content" (issue 20 §3): the first Tab stop of every signed-in screen, hidden until it
// has the focus; it moves the focus to the main content, past the header and the menu.
import type { MouseEvent } from 'react';
import { focusMain, MAIN_ID } from '../focus';
import { useI18n } from '../i18n';

export { MAIN_ID };

/** The skip link; render it first in the shell. */
export function SkipLink() {
  const { t } = useI18n();
  const skip = (event: MouseEvent<HTMLAnchorElement>) => {
    // Focus, not navigation: the app's router owns the address.
    event.preventDefault();
    focusMain();
  };
  return (
    <a className="fw-skip-link" href={`#${MAIN_ID}`} onClick={skip}>
      {t('a11y.skipToContent')}
    </a>
  );
}
