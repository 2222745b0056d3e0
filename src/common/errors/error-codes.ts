import { HttpStatus } from '@nestjs/common';

/**
 * The stable machine codes of docs/api.md "Errors" and the HTTP status each one maps to.
 * Services throw DomainError with one of these codes; the exception filter turns it into
 * a problem document (or `{error, message}` on fiscal routes).
 */
export const ERROR_CODES = {
  validacion: HttpStatus.BAD_REQUEST,
  campo_inmutable: HttpStatus.BAD_REQUEST,
  password_actual_incorrecto: HttpStatus.BAD_REQUEST,
  password_debil: HttpStatus.BAD_REQUEST,
  no_autenticado: HttpStatus.UNAUTHORIZED,
  credenciales_invalidas: HttpStatus.UNAUTHORIZED,
  refresh_invalido: HttpStatus.UNAUTHORIZED,
  permiso_denegado: HttpStatus.FORBIDDEN,
  privilegio_insuficiente: HttpStatus.FORBIDDEN,
  no_encontrado: HttpStatus.NOT_FOUND,
  sin_precio_vigente: HttpStatus.NOT_FOUND,
  metodo_no_permitido: HttpStatus.METHOD_NOT_ALLOWED,
  duplicado: HttpStatus.CONFLICT,
  rol_en_uso: HttpStatus.CONFLICT,
  medio_inactivo: HttpStatus.CONFLICT,
  anti_lockout: HttpStatus.CONFLICT,
  rubro_con_avisos: HttpStatus.CONFLICT,
  rubro_con_hijos_activos: HttpStatus.CONFLICT,
  rubro_con_productos_activos: HttpStatus.CONFLICT,
  rubro_inactivo: HttpStatus.CONFLICT,
  profundidad_maxima: HttpStatus.CONFLICT,
  movimiento_invalido: HttpStatus.CONFLICT,
  tipo_producto_inactivo: HttpStatus.CONFLICT,
  tipo_producto_en_uso: HttpStatus.CONFLICT,
  precio_no_posterior: HttpStatus.CONFLICT,
  conflicto: HttpStatus.CONFLICT,
  version_obsoleta: HttpStatus.PRECONDITION_FAILED,
  payload_demasiado_grande: HttpStatus.PAYLOAD_TOO_LARGE,
  tipo_de_contenido_no_soportado: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
  demasiados_intentos: HttpStatus.TOO_MANY_REQUESTS,
  error_interno: HttpStatus.INTERNAL_SERVER_ERROR,
  servicio_no_disponible: HttpStatus.SERVICE_UNAVAILABLE,
} as const satisfies Record<string, HttpStatus>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Default code for a bare HTTP status (framework errors, HttpExceptions thrown by libraries). */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'validacion';
    case 401:
      return 'no_autenticado';
    case 403:
      return 'permiso_denegado';
    case 404:
      return 'no_encontrado';
    case 405:
      return 'metodo_no_permitido';
    case 409:
      return 'conflicto';
    case 412:
      return 'version_obsoleta';
    case 413:
      return 'payload_demasiado_grande';
    case 415:
      return 'tipo_de_contenido_no_soportado';
    case 429:
      return 'demasiados_intentos';
    case 503:
      return 'servicio_no_disponible';
    default:
      return status >= 500 ? 'error_interno' : 'validacion';
  }
}
