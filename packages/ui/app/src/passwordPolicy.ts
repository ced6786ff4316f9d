// The password policy of GET /login-settings as the forms use it: the rule text, the checks a
// browser can make before submit, and a refusal of the server shown in the reader's language.
import type { useI18n } from './i18n';
import type { PasswordPolicyView } from './types';

type PolicyRule = NonNullable<PasswordPolicyView['rules']>[number];

/** The message of a policy rule, for the rule text and for a refusal the server names by rule. */
export function policyMessage(t: ReturnType<typeof useI18n>['t'], rule: string, policy: PasswordPolicyView | undefined, fallback: string): string {
  const params = { min: policy?.minLength ?? 10, max: policy?.maxLength ?? 200 };
  switch (rule as PolicyRule) {
    case 'minLength':
      return t('pwd.rule.minLength', params);
    case 'maxLength':
      return t('pwd.rule.maxLength', params);
    case 'notAccount':
      return t('pwd.rule.notAccount');
    case 'notCommon':
      return t('pwd.rule.notCommon');
    default:
      return fallback;
  }
}

/**
 * The checks of the password policy a browser can make before submit (lengths, the account);
 * the common-password list stays on the server, which checks everything again.
 */
export function localPolicyRefusal(value: string, policy: PasswordPolicyView | undefined, account: string | undefined): PolicyRule | undefined {
  if (!policy || !value) return undefined;
  const length = [...value].length;
  if (length < policy.minLength) return 'minLength';
  if (length > policy.maxLength) return 'maxLength';
  const name = account?.trim().toLowerCase();
  const lower = value.toLowerCase();
  if (name && (lower === name || (name.length >= 4 && lower.includes(name)))) return 'notAccount';
  return undefined;
}
