import { ActivoFilter } from '../../common/validation/fields.js';

export class FiscalListQueryDto {
  @ActivoFilter('entries')
  activo?: boolean;
}
