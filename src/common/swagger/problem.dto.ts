import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { STATUS_CODES } from 'node:http';
import { DEFAULT_FIELD_ERROR_CODE } from '../errors/domain-error.js';
import { ERROR_CODES } from '../errors/error-codes.js';
import { MAX_FIELD_ERRORS } from '../errors/error-renderer.js';

/** The closed list of `code` values, one named schema shared by both error bodies. */
const ERROR_CODE_SCHEMA = { enum: Object.keys(ERROR_CODES), enumName: 'ErrorCode' } as const;

export class FieldErrorDto {
  @ApiProperty({ example: 'codigo', description: 'The offending field, as a path (`permisos[2]`, `a.b`).' }) field!: string;
  @ApiProperty({
    example: 'matches',
    description: `The rule that failed: the validator's constraint name (\`isInt\`, \`matches\`, \`whitelistValidation\` for an unknown property…) or \`${DEFAULT_FIELD_ERROR_CODE}\`.`,
  })
  code!: string;
  @ApiProperty({ example: 'codigo no tiene el formato esperado' }) message!: string;
}

/** RFC 9457 problem document: every error outside the fiscal routes. */
export class ProblemDetailsDto {
  @ApiProperty({ example: 'about:blank' }) type!: string;
  @ApiProperty({ example: 'Conflict' }) title!: string;
  @ApiProperty({ example: 409 }) status!: number;
  @ApiProperty({ example: 'El medio 7 está inactivo' }) detail!: string;
  @ApiProperty({ example: '/api/v1/admin/secciones/7' }) instance!: string;
  @ApiProperty({ ...ERROR_CODE_SCHEMA, example: 'medio_inactivo', description: 'Stable machine code; the list is closed.' }) code!: string;
  @ApiProperty({ format: 'uuid', example: '0f8fad5b-d9cb-469f-a165-70867728950e', description: 'The `X-Correlation-Id` of the request.' })
  correlationId!: string;
  @ApiPropertyOptional({ type: [FieldErrorDto], maxItems: MAX_FIELD_ERRORS, description: 'Only on validation failures; the first 20.' })
  errors?: FieldErrorDto[];
}

/** The error body of the fiscal routes (/api/v1/admin/fiscal/*). */
export class FiscalErrorDto {
  @ApiProperty({ ...ERROR_CODE_SCHEMA, example: 'validacion' }) error!: string;
  @ApiProperty({ example: 'porcentaje debe ser un número JSON entre 0 y 100 con hasta 2 decimales' }) message!: string;
}

const DEFAULT_DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failure (`validacion`).',
  401: 'Missing, invalid or expired access token (`no_autenticado`).',
  403: 'The caller lacks the required permission (`permiso_denegado`).',
  404: 'Not found (`no_encontrado`).',
  409: 'A rule of the resource was broken (see `code`).',
  429: 'Too many attempts (`demasiados_intentos`), see `Retry-After`.',
};

export type ErrorSpec = number | [number, string];

const EXAMPLE_CODES: Record<number, string> = {
  400: 'validacion',
  401: 'no_autenticado',
  403: 'permiso_denegado',
  404: 'no_encontrado',
  409: 'duplicado',
  412: 'version_obsoleta',
  429: 'demasiados_intentos',
  500: 'error_interno',
  503: 'servicio_no_disponible',
};

/**
 * The `detail` of an example, in Spanish as the service writes it (the answers' own details name
 * the resource or the field; these are their general form).
 */
const EXAMPLE_DETAILS: Record<string, string> = {
  validacion: 'La solicitud no es válida',
  campo_inmutable: 'El campo codigo no se puede modificar',
  no_autenticado: 'Se requiere un token de acceso válido',
  credenciales_invalidas: 'Usuario o contraseña incorrectos',
  refresh_invalido: 'La sesión no se puede renovar; inicie sesión de nuevo',
  permiso_denegado: 'No tiene permiso para esta operación',
  privilegio_insuficiente: 'No puede otorgar permisos que no tiene',
  no_encontrado: 'El recurso no existe',
  duplicado: 'Ya existe un recurso con ese codigo',
  version_obsoleta: 'El recurso cambió desde que se leyó: vuelva a leerlo (GET) y repita el cambio con el ETag nuevo en If-Match',
  demasiados_intentos: 'Demasiados intentos fallidos; intente de nuevo más tarde',
  error_interno: 'Error interno del servidor',
  servicio_no_disponible: 'El servicio no está disponible en este momento',
};

/**
 * A problem document example that fits the status (the schema's own example is a 409): the code
 * the description names, a Spanish detail, and on a 400 the field error of the first property the
 * description names, when it names one (a made-up field would be one the operation does not have).
 */
function problemExample(status: number, description: string): Record<string, unknown> {
  const named = [...description.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).find((c) => c !== undefined && c in ERROR_CODES);
  const code = named ?? EXAMPLE_CODES[status] ?? 'error_interno';
  const field = [...description.matchAll(/`([a-z][A-Za-z]*)`/g)].map((m) => m[1]).find((f) => f !== undefined && !(f in ERROR_CODES));
  return {
    type: 'about:blank',
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail: EXAMPLE_DETAILS[code] ?? 'La operación no es posible en el estado actual del recurso',
    instance: '/api/v1/…',
    code,
    correlationId: '0f8fad5b-d9cb-469f-a165-70867728950e',
    ...(status === 400 && code === 'validacion' && field ? { errors: [{ field, code: 'invalid', message: `${field} no es válido` }] } : {}),
  };
}

/** Documents problem+json error answers of an operation. */
export function ApiErrors(...specs: ErrorSpec[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(ProblemDetailsDto),
    ...specs.map((spec) => {
      const [status, description] = Array.isArray(spec) ? spec : [spec, DEFAULT_DESCRIPTIONS[spec] ?? STATUS_CODES[spec] ?? 'Error'];
      return ApiResponse({
        status,
        description,
        content: { 'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDetailsDto) }, example: problemExample(status, description) } },
      });
    }),
  );
}

/** Documents `{error, message}` error answers of a fiscal operation. */
export function ApiFiscalErrors(...specs: ErrorSpec[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(FiscalErrorDto),
    ...specs.map((spec) => {
      const [status, description] = Array.isArray(spec) ? spec : [spec, DEFAULT_DESCRIPTIONS[spec] ?? STATUS_CODES[spec] ?? 'Error'];
      const problem = problemExample(status, description);
      const example = { error: problem.code, message: problem.detail };
      return ApiResponse({ status, description, content: { 'application/json': { schema: { $ref: getSchemaPath(FiscalErrorDto) }, example } } });
    }),
  );
}
