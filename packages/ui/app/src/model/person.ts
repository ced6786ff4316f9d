// Who made a logged change, as people read it: by the name the live notes and presence use, with
// the account the operate log holds beside it when the two differ.

/** "Bob Stone (bob)", "bob" when the name is the account or missing, undefined when neither is known. */
export function personLabel(user: { account: string | null; name?: string | null } | null | undefined): string | undefined {
  const name = user?.name || undefined;
  const account = user?.account || undefined;
  if (name && account && name !== account) return `${name} (${account})`;
  return name ?? account;
}
