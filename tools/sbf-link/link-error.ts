/** The one error the SBF linker throws: a message naming the object, section, offset and cause. */
export class LinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LinkError';
  }
}

/** `0x1f8` style hex for offsets in messages. */
export function hex(value: number | bigint): string {
  const negative = value < 0;
  const magnitude = negative ? -value : value;
  return `${negative ? '-' : ''}0x${magnitude.toString(16)}`;
}
