import { ArgumentMetadata, BadRequestException } from '@nestjs/common';
import { IsOptional, Matches } from 'class-validator';
import { IsBase58Address } from '../chain/address-constraint';
import { UploadHeaders } from '../upload/upload-request.dto';
import { MemoizedValidationPipe, validationPipe } from './validation-pipe';

/** A second DTO with the same field, validated on its own. */
class OtherParams {
  @IsBase58Address({ message: 'not an address' })
  track!: string;
}

class Params {
  @IsBase58Address({ message: 'not an address' })
  track!: string;

  @IsOptional()
  @Matches(/^\d+$/, { message: 'not a number' })
  n?: string;
}

const ADDRESS = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const refuse = (message: string) => new BadRequestException(message);
const meta = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({
  type: 'param',
  metatype,
});

async function refusal(work: Promise<unknown>): Promise<string> {
  const error = (await work.then(
    () => undefined,
    (e: unknown) => e,
  )) as BadRequestException | undefined;
  return error?.message ?? 'accepted';
}

describe('validationPipe', () => {
  const pipe = validationPipe(refuse);

  it('answers a DTO instance for valid input', async () => {
    const dto = (await pipe.transform({ track: ADDRESS, n: '12' }, meta(Params))) as Params;
    expect(dto).toBeInstanceOf(Params);
    expect(dto.track).toBe(ADDRESS);
  });

  it("refuses with the route's error and the first failed constraint's message", async () => {
    expect(await refusal(pipe.transform({ track: 'nope' }, meta(Params)))).toBe('not an address');
    expect(await refusal(pipe.transform({ track: ADDRESS, n: 'x' }, meta(Params)))).toBe(
      'not a number',
    );
    // Not canonical base58 (leading zero bytes written differently) is not an address either.
    expect(await refusal(pipe.transform({ track: `1${ADDRESS}` }, meta(Params)))).toBe(
      'not an address',
    );
  });

  it('maps the upload headers onto UploadHeaders and checks Content-Length', async () => {
    const headers = {
      'content-length': '1234',
      'x-tape-signer': 'S',
      'x-tape-timestamp': '1',
      'x-tape-signature': 'sig',
      host: 'gw',
    };
    const dto = (await pipe.transform(headers, meta(UploadHeaders))) as UploadHeaders;
    expect([dto.contentLength, dto.signer, dto.timestamp, dto.signature]).toEqual([
      '1234',
      'S',
      '1',
      'sig',
    ]);
    for (const bad of ['-1', '1e3', '12345678901234567', ' 1']) {
      expect(await refusal(pipe.transform({ 'content-length': bad }, meta(UploadHeaders)))).toBe(
        'malformed Content-Length',
      );
    }
  });
});

describe('MemoizedValidationPipe', () => {
  it('validates an input once, then answers the same DTO; refusals are never remembered', async () => {
    const pipe = new MemoizedValidationPipe(refuse);
    const first = await pipe.transform({ track: ADDRESS }, meta(Params));
    expect(first).toBeInstanceOf(Params);
    expect(await pipe.transform({ track: ADDRESS }, meta(Params))).toBe(first);
    for (let i = 0; i < 2; i++) {
      expect(await refusal(pipe.transform({ track: 'bad' }, meta(Params)))).toBe('not an address');
    }
    // Another DTO class with the same input is validated on its own.
    expect(await pipe.transform({ track: ADDRESS }, meta(OtherParams))).toBeInstanceOf(OtherParams);
  });
});
