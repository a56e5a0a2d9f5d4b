import { NativeHost } from './native-host';
import { ProgramHost } from './program-host';
import { SvmHost } from './svm-host';

/** Both hosts, for `describe.each`: every parity spec runs on the oracle and on the C build. */
export const HOSTS: [string, () => ProgramHost][] = [
  ['native', () => new NativeHost()],
  ['svm', () => new SvmHost()],
];
