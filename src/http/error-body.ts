/** The stable error body of the gateway's own routes: `{"error":{"code":"...","message":"..."}}`. */
export interface ErrorBody {
  error: { code: string; message: string };
}

export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

/** Stable codes for HTTP statuses when a handler gives none of its own. */
export function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 408:
      return 'request_timeout';
    case 409:
      return 'conflict';
    case 410:
      return 'gone';
    case 413:
      return 'payload_too_large';
    case 414:
      return 'uri_too_long';
    case 415:
      return 'unsupported_media_type';
    case 416:
      return 'range_not_satisfiable';
    case 429:
      return 'too_many_requests';
    case 431:
      return 'request_header_fields_too_large';
    case 502:
      return 'bad_gateway';
    case 503:
      return 'unavailable';
    default:
      return status >= 500 ? 'internal_error' : 'error';
  }
}
