/** The peer address of a socket as one text per host (`::ffff:1.2.3.4` is `1.2.3.4`). */
export function clientAddress(remoteAddress: string | undefined): string {
  if (!remoteAddress) return 'unknown';
  return remoteAddress.startsWith('::ffff:') && remoteAddress.includes('.')
    ? remoteAddress.slice('::ffff:'.length)
    : remoteAddress;
}
