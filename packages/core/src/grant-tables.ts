// The built-in tables that hold permissions, apart from the built-in models (builtin-models.ts)
// so that defineModel can tell, once per model, whether writing it can change or hand out grants
// (model.capabilities.touchesGrants, holdsGrants) without importing the models it defines.

/** Tables whose changes alter what users are granted: writes to them bump the grants version. */
export const GRANT_TABLES: ReadonlySet<string> = new Set(['fw_user_role', 'fw_role', 'fw_role_menu', 'fw_menu']);

/**
 * Tables whose rows can hand out permissions (users, roles, menus, organisations, open-API keys):
 * a non-administrator's write to them is held to the grant rules.
 */
export const PERMISSION_TABLES: ReadonlySet<string> = new Set(['fw_user', 'fw_role', 'fw_menu', 'fw_org', 'fw_open_api']);

/** The link tables between them (a user's roles and organisations, a role's menus), held to the same rules. */
export const PERMISSION_LINKS: ReadonlySet<string> = new Set(['fw_user_role', 'fw_role_menu', 'fw_user_org']);
