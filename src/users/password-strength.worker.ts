import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary as common } from '@zxcvbn-ts/language-common';
import { dictionary as spanish, translations } from '@zxcvbn-ts/language-es-es';

/**
 * The password-strength estimate, run in a worker thread (PasswordStrength): zxcvbn-ts spends from
 * a few milliseconds to over a second of CPU on one password of 72 bytes, which must never block
 * the event loop that answers every other request. Its dictionaries (common passwords, Spanish
 * words and names) are loaded once per worker.
 *
 * Plain type annotations only: Node runs this file without compiling it in the test suite.
 */
const zxcvbn = new ZxcvbnFactory({
  dictionary: { ...common, ...spanish },
  graphs: adjacencyGraphs,
  translations,
});

export interface StrengthTask {
  password: string;
  userInputs: string[];
}

export interface StrengthResult {
  /** 0 (guessable in a few tries) to 4 (very hard to guess) */
  score: number;
  /** zxcvbn's explanation in Spanish, when it has one (never contains the password) */
  warning: string | null;
}

export default function strength({ password, userInputs }: StrengthTask): StrengthResult {
  const result = zxcvbn.check(password, userInputs);
  return { score: result.score, warning: result.feedback.warning || null };
}
