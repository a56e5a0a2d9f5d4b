import { IsInt, IsString, Max, Min } from 'class-validator';

/** `storage.*`: where track bytes live. */
export class StorageConfig {
  @IsString()
  data_dir = './.tape-data';

  /** Objects larger than this are stored as segment tracks plus a manifest. */
  @IsInt()
  @Min(64 * 1024)
  @Max(1024 * 1024 * 1024)
  segment_bytes = 8 * 1024 * 1024;
}
