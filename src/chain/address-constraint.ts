import { ValidateBy, ValidationOptions } from 'class-validator';
import { parseAddress } from './tape-label';

/**
 * class-validator: the field is a base58 address in canonical form (parseAddress, the one
 * parser of addresses typed by people and clients).
 */
export function IsBase58Address(options: ValidationOptions & { message: string }) {
  return ValidateBy(
    {
      name: 'isBase58Address',
      validator: { validate: (value) => typeof value === 'string' && parseAddress(value) !== null },
    },
    options,
  );
}
