import { Expose } from 'class-transformer';
import { IsOptional, IsString, Matches } from 'class-validator';
import { UPLOAD_HEADERS } from './upload-auth';

/**
 * The headers of a version upload (`PUT /upload/{tape}/{commitment}`, `POST /publish/{tape}`) the gateway reads: the declared length and the signed
 * claim (docs/uploads.md). Checked here for form only; who signed and whether the length is the
 * bytes' are the service's questions.
 */
export class UploadHeaders {
  @Expose({ name: 'content-length' })
  @IsOptional()
  @Matches(/^\d{1,16}$/, { message: 'malformed Content-Length' })
  contentLength?: string;

  @Expose({ name: UPLOAD_HEADERS.signer })
  @IsOptional()
  @IsString()
  signer?: string;

  @Expose({ name: UPLOAD_HEADERS.timestamp })
  @IsOptional()
  @IsString()
  timestamp?: string;

  @Expose({ name: UPLOAD_HEADERS.signature })
  @IsOptional()
  @IsString()
  signature?: string;
}
