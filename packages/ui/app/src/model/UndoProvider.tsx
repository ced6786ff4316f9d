// Undo after a write (issue 23 §3). A write that answers a batch id (bulk edit, paste, delete,
// undelete, restore, import) says so in a notification with an Undo button, kept ten seconds. The
// button first asks the server for a dry run: with no conflicts the undo goes through at once; with
// conflicts a dialog lists them, and each row changed since can be forced. The undo answers a batch
// of its own, offered the same way, so undoing the undo is a redo.
//
// The provider sits around the model page, so the conflict dialog outlives the dialog or drawer
// whose write it takes back.
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';
import { App, Button } from 'antd';
import { UndoOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../client/api';
import type { UndoAnswer, UndoBody } from '../client/answers';
import { useUndo } from '../client/mutations';
import { invalidateModel } from '../client/queries';
import { useI18n } from '../i18n';
import { OPERATE_LOG_MODEL } from './OperateLogDiff';
import { UndoConflictDialog } from './UndoConflictDialog';

/** How long the Undo offer stays, in seconds (hovering keeps it). */
const OFFER_SECONDS = 10;

interface UndoTools {
  /** Tells `text` with an Undo of `batch` (a plain success message when there is no batch). */
  offer(text: string, batch: string | null | undefined, fw?: string): void;
  /** Undoes for good (entries in `force` too), refreshes what it touched and offers the redo. */
  apply(body: UndoBody, force: number[], fw?: string): Promise<UndoAnswer>;
  /** Shows a failed undo (nothing to undo, not allowed, …). */
  fail(error: unknown): void;
}

const UndoContext = createContext<UndoTools | null>(null);

/** The success message of a write with its Undo offer; outside an {@link UndoProvider}, a plain message. */
export function useUndoOffer(fw: string): (text: string, batch: string | null | undefined) => void {
  const tools = useContext(UndoContext);
  const { message } = App.useApp();
  return useCallback((text, batch) => (tools ? tools.offer(text, batch, fw) : void message.success(text)), [tools, fw, message]);
}

/** The undo tools for the administrators' dialog (null outside an {@link UndoProvider}). */
export function useUndoTools(): UndoTools | null {
  return useContext(UndoContext);
}

/** Offers Undo after writes inside it, and holds the conflict dialog. */
export function UndoProvider({ children }: { children: ReactNode }) {
  const { t } = useI18n();
  const { message, notification } = App.useApp();
  const queryClient = useQueryClient();
  const undo = useUndo();
  const [pending, setPending] = useState<{ body: UndoBody; preview: UndoAnswer; fw?: string }>();
  // The notification's button calls the tools of the render that showed it: read the newest through a ref.
  const tools = useRef<UndoTools & { start: typeof start }>(null);

  const fail = (error: unknown) => {
    if (error instanceof ApiError && error.status === 401) return;
    if (error instanceof ApiError && error.status === 404) message.info(t('undo.nothing'));
    else message.error(error instanceof Error ? error.message : String(error));
  };

  const apply = async (body: UndoBody, force: number[], fw?: string) => {
    const answer = await undo.mutateAsync({ ...body, ...(force.length > 0 ? { force } : {}) });
    // Every model the undo wrote to, the page's own, and the log (the undo is logged too).
    const models = new Set([...answer.steps.map((s) => s.model), ...(fw ? [fw] : []), OPERATE_LOG_MODEL]);
    await Promise.all([...models].map((m) => invalidateModel(queryClient, m)));
    offer(t('undo.done', { count: answer.undone }), answer.batch, fw);
    return answer;
  };

  const start = async (batch: string, fw?: string) => {
    try {
      const preview = await undo.mutateAsync({ batch, dryRun: true });
      if (preview.conflicts.length === 0) await apply({ batch }, [], fw);
      else setPending({ body: { batch }, preview, ...(fw ? { fw } : {}) });
    } catch (error) {
      fail(error);
    }
  };

  const offer = (text: string, batch: string | null | undefined, fw?: string) => {
    if (!batch) {
      message.success(text);
      return;
    }
    // One offer at a time: a newer write's Undo replaces the older one (which stays in the log).
    const key = 'fw-undo';
    notification.success({
      key,
      title: text,
      duration: OFFER_SECONDS,
      className: 'fw-undo-offer',
      // At the bottom, where it covers no drawer's title or dialog's buttons.
      placement: 'bottom',
      actions: (
        <Button
          size="small"
          type="primary"
          icon={<UndoOutlined />}
          className="fw-undo"
          onClick={() => {
            notification.destroy(key);
            void tools.current!.start(batch, fw);
          }}
        >
          {t('undo.button')}
        </Button>
      ),
    });
  };

  tools.current = { offer, apply, fail, start };
  const value = useMemo<UndoTools>(
    () => ({
      offer: (...args) => tools.current!.offer(...args),
      apply: (...args) => tools.current!.apply(...args),
      fail: (error) => tools.current!.fail(error),
    }),
    [],
  );

  return (
    <UndoContext.Provider value={value}>
      {children}
      {pending && (
        <UndoConflictDialog
          preview={pending.preview}
          fw={pending.fw}
          busy={undo.isPending}
          onCancel={() => setPending(undefined)}
          onApply={async (force) => {
            try {
              await apply(pending.body, force, pending.fw);
              setPending(undefined);
            } catch (error) {
              fail(error);
            }
          }}
        />
      )}
    </UndoContext.Provider>
  );
}
