/**
 * A connection URL safe to print: the password of its user part (`//user:secret@`, `//:secret@`)
 * and any password-like query or `;key=value` parameter (`?password=…`, `;pwd=…`) masked. The
 * password runs to the last `@` of the URL: one holding an unencoded `/` or `@` is masked whole
 * (an `@` further on, in a parameter, masks more than the password, never less).
 */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:).*@/, '$1***@').replace(/([?&;](?:password|pwd|pass)=)[^&;]*/gi, '$1***');
}
