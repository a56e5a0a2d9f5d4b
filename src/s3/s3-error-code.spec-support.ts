import { S3Error } from './s3-error';

/**
 * The S3 error code `fn` throws, or `'no error'` when it returns. Any other error is thrown
 * again: a bug in the code under test is not one of its refusals.
 */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof S3Error) return error.code;
    throw error;
  }
  return 'no error';
}
