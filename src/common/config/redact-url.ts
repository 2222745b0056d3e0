/**
 * A connection URL safe to print: the password of its user part (`//user:secret@`, `//:secret@`)
 * and any password-like query or `;key=value` parameter (`?password=…`, `;pwd=…`) masked.
 */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@').replace(/([?&;](?:password|pwd|pass)=)[^&;]*/gi, '$1***');
}
