import { ApiError } from '../../common/api-error';

/** Errors of the upload route (docs/uploads.md, the status table). */
export const uploadErrors = {
  badRequest: (message: string) => new ApiError(400, 'bad_request', message),
  unauthorized: (message: string) => new ApiError(401, 'unauthorized', message),
  forbidden: (message: string) => new ApiError(403, 'forbidden', message),
  notFound: (message: string) => new ApiError(404, 'not_found', message),
  conflict: (message: string) => new ApiError(409, 'conflict', message),
  gone: (message: string) => new ApiError(410, 'gone', message),
  tooLarge: (message: string) => new ApiError(413, 'payload_too_large', message),
  mismatch: (message: string) => new ApiError(422, 'commitment_mismatch', message),
  unavailable: (message: string) => new ApiError(503, 'unavailable', message),
};
