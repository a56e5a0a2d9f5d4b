import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

/** `gateway.s3.*`: the S3-compatible listener. */
export class S3Config {
  @IsInt()
  @Min(0)
  @Max(65535)
  port = 8081;

  /** Host for virtual-hosted-style buckets (`<bucket>.<host>`); empty = path style only. */
  @IsOptional()
  @IsString()
  virtual_host?: string;

  @IsString()
  region = 'us-east-1';

  /** Largest single PutObject / UploadPart body. */
  @IsInt()
  @Min(1)
  max_object_bytes = 5 * 1024 * 1024 * 1024;
}
