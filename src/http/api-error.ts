import { HttpException } from '@nestjs/common';
import { errorBody } from './error-body';

/** An error a route answers on purpose: its status, stable code and one-line message. */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly code: string,
    message: string,
  ) {
    super(errorBody(code, message), status);
    // HttpException would name an object body after the class ("Api Error"): logs and traces
    // must say what failed.
    this.message = message;
  }
}
