import { ObjectReader, OpenedObject } from '../tracks/object-reader';
import { objectHeaders } from './object-route-headers';
import { ObjectService } from './object.service';
import { StreamedBytesCollector } from './streamed-bytes-collector';
import { ServableTrack, TrackResolver } from './track-resolver';

export const ETAG = `"${'ab'.repeat(32)}"`;

/** The service over a resolver and reader that answer from memory. */
export function newTestService(opened: Partial<OpenedObject> | Error, size = 1000) {
  const track: ServableTrack = {
    address: 'Track1111111111111111111111111111111111111',
    tape: 'Tape11111111111111111111111111111111111111',
    ref: { kind: 'blob', commitment: Buffer.alloc(32, 0xab), size },
    commitmentHex: 'ab'.repeat(32),
    etag: ETAG,
    headers: objectHeaders('text/plain', ETAG),
  };
  // `warm`: whether the track's chain record counts as cached (what `peek` answers).
  const resolver = {
    warm: true,
    peek: (address: string): ServableTrack | undefined =>
      resolver.warm && address === track.address ? track : undefined,
    resolve: () => Promise.resolve(track),
  };
  const open = jest.fn(() =>
    opened instanceof Error ? Promise.reject(opened) : Promise.resolve(opened as OpenedObject),
  );
  const sut = new ObjectService(
    resolver as unknown as TrackResolver,
    { open } as unknown as ObjectReader,
    new StreamedBytesCollector(1024, () => undefined),
  );
  const answer = (method = 'GET', headers: Record<string, string> = {}) =>
    sut.answer({ method, headers }, track.address);
  return { sut, answer, open, track, resolver };
}
