// The account routes of `fwLogin`, each contract beside its handler (issue 22 §5): who the caller
// is, the menus their roles grant, and what a sign-in page needs before anyone signed in.
import { loginSettings } from './login-settings.js';
import { withFolders } from './menu-folders.js';
import { modelMenuTitles } from './menu-titles.js';
import { LOGIN_TAGS, loginRoute, type LoginRoute } from './sign-in-routes.js';
import { needsPasswordReset } from './user-service.js';

/** `GET /userinfo`, `GET /menu` and `GET /login-settings`. */
export const accountRoutes: readonly LoginRoute[] = [
  loginRoute({
    method: 'get',
    path: '/userinfo',
    operationId: 'userInfo',
    tags: LOGIN_TAGS,
    summary: 'The signed-in user and their roles',
    security: 'token',
    passwordChange: 'allowed',
    answers: {
      200: {
        description: 'The user',
        json: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            account: { type: 'string' },
            name: { type: ['string', 'null'] },
            isAdmin: { type: 'boolean' },
            resetPwd: { type: 'boolean' },
            roles: {
              type: 'array',
              items: {
                type: 'object',
                properties: { id: { type: 'integer' }, code: { type: 'string' }, name: { type: 'string' } },
                required: ['id', 'code', 'name'],
                additionalProperties: false,
              },
            },
          },
          required: ['id', 'account', 'name', 'isAdmin', 'resetPwd', 'roles'],
          additionalProperties: false,
        },
      },
    },
    errors: [401],
    async handle(_ctx, { deps: o, who: { user } }) {
      const stored = await o.store.users.findById(user.id);
      const roleIds = await o.store.users.roleIds(user.id);
      const roles = (await Promise.all(roleIds.map((id) => o.store.roles.findById(id))))
        .filter((role): role is NonNullable<typeof role> => Boolean(role))
        .map((role) => ({ id: role.id, code: role.code, name: role.name }));
      return {
        id: user.id,
        account: user.account,
        name: user.name ?? null,
        isAdmin: user.isAdmin === true,
        resetPwd: needsPasswordReset(stored),
        roles,
      };
    },
  }),
  loginRoute({
    method: 'get',
    path: '/menu',
    operationId: 'menu',
    tags: LOGIN_TAGS,
    summary: "The menus the signed-in user's roles grant",
    security: 'token',
    answers: {
      200: {
        description: 'The menus',
        json: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'integer' },
              code: { type: ['string', 'null'] },
              name: { type: 'string' },
              titles: { $ref: '#/components/schemas/FwTitles' },
              type: { type: 'string' },
              value: { type: ['string', 'null'] },
              icon: { type: ['string', 'null'] },
              parentId: { type: ['integer', 'null'] },
              status: { type: 'string' },
            },
            required: ['id', 'code', 'name', 'type', 'value', 'icon', 'parentId', 'status'],
            additionalProperties: false,
          },
        },
      },
    },
    errors: [401],
    async handle(_ctx, { deps: o, who: { user } }) {
      const menus = user.isAdmin ? (await o.store.menus.allMenus()).filter((m) => m.status !== 'disabled') : await withFolders(o.store, await o.store.menus.menusForUser(user.id));
      return menus.map((m) => ({
        id: m.id,
        code: m.code ?? null,
        name: m.name,
        ...modelMenuTitles(o.registry, m),
        type: m.type,
        value: m.value ?? null,
        icon: m.icon ?? null,
        parentId: m.parentId ?? null,
        status: m.status,
      }));
    },
  }),
  /** `GET /login-settings`, open: what the sign-in page shows and how it must send the password. Nothing secret. */
  loginRoute({
    method: 'get',
    path: '/login-settings',
    operationId: 'loginSettings',
    tags: LOGIN_TAGS,
    summary: 'What a sign-in page needs before anyone signed in',
    security: 'open',
    answers: {
      200: {
        description: 'The settings',
        json: {
          type: 'object',
          properties: {
            title: { type: 'string' },
            pwdTransferEncrypt: { type: 'boolean' },
            verifyCodeCount: { type: 'integer' },
            providers: {
              type: 'array',
              items: {
                type: 'object',
                properties: { id: { type: 'string' }, name: { type: 'string' }, url: { type: 'string' } },
                required: ['id', 'name', 'url'],
                additionalProperties: false,
              },
            },
            passwordPolicy: {
              type: 'object',
              description: 'The password policy every password change is held to',
              properties: {
                minLength: { type: 'integer' },
                maxLength: { type: 'integer' },
                rules: { type: 'array', items: { type: 'string', enum: ['minLength', 'maxLength', 'notAccount', 'notCommon'] } },
              },
              required: ['minLength', 'maxLength', 'rules'],
              additionalProperties: false,
            },
          },
          required: ['title', 'pwdTransferEncrypt', 'verifyCodeCount', 'providers', 'passwordPolicy'],
          additionalProperties: false,
        },
      },
    },
    errors: [],
    handle: (_ctx, { deps: o }) => loginSettings(o.config, o.providers(), o.passwordPolicy),
  }),
];
