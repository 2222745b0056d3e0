import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error.js';
import { passwordProblems, temporaryPassword } from './password-policy.js';
import { PasswordStrength } from './password-strength.js';

/** zxcvbn's scale: 0 guessable in a few tries … 4 very hard to guess; below this a password is weak. */
export const MIN_STRENGTH_SCORE = 3;

/** The user a password is for: its own fields are words an attacker tries first. */
export interface PasswordOwner {
  username: string;
  nombre?: string;
  apellido?: string;
  email?: string;
}

/** The owner's fields as zxcvbn user inputs (the e-mail whole and its local part). */
export function userInputsOf(owner: PasswordOwner): string[] {
  const inputs = [owner.username, owner.nombre, owner.apellido, owner.email, owner.email?.split('@')[0]];
  return inputs.filter((v): v is string => typeof v === 'string' && v.length > 0);
}

/**
 * The password policy as a whole (docs/auth.md): the fixed rules of password-policy.ts, then the
 * strength estimate of zxcvbn-ts (common and Spanish dictionaries, the owner's own fields as
 * context), which must score at least MIN_STRENGTH_SCORE. Violations: 400 `password_debil`, naming
 * what is missing and never echoing the password.
 */
@Injectable()
export class PasswordPolicy {
  constructor(private readonly strength: PasswordStrength) {}

  async assertAcceptable(password: string, owner: PasswordOwner, field = 'password'): Promise<void> {
    const problems = await this.problems(password, owner);
    if (problems.length) {
      throw new DomainError(
        'password_debil',
        `La contraseña ${problems.join('; ')}`,
        problems.map((message) => ({ field, message })),
      );
    }
  }

  /** A random temporary password the whole policy accepts (the first one practically always does). */
  async temporaryFor(owner: PasswordOwner): Promise<string> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const candidate = temporaryPassword();
      if (!(await this.problems(candidate, owner)).length) return candidate;
    }
    throw new Error('no random temporary password satisfied the policy in 5 attempts');
  }

  private async problems(password: string, owner: PasswordOwner): Promise<string[]> {
    const problems = passwordProblems(password, owner.username);
    // the estimate only for a password the fixed rules accept: they are cheap, it is not
    if (problems.length) return problems;
    const { score, warning } = await this.strength.estimate(password, userInputsOf(owner));
    return score < MIN_STRENGTH_SCORE ? [`es demasiado fácil de adivinar${warning ? ` (${warning})` : ''}`] : [];
  }
}
