import { Keypair, PublicKey } from '@solana/web3.js';
import { createHash } from 'node:crypto';
import { TrackKind, TrackRecord } from '../../chain/account-layouts';
import { NamedRecord } from '../../chain/chain-reader';
import { SegmentingHasher } from '../../tracks/track-layout';
import { HashedFile, commitmentsToLookUp, planDeploy } from './deploy-planner';
import { contentTypeOf } from '../../tracks/content-type';

const SEGMENT = 64 * 1024;
const tape = Keypair.generate().publicKey;
const trackAddress = (c: Buffer) =>
  new PublicKey(createHash('sha256').update(tape.toBuffer()).update(c).digest());

function file(name: string, body: string | Buffer): HashedFile {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const layout = new SegmentingHasher(SEGMENT).update(bytes).digest();
  const commitment =
    layout.kind === 'blob' ? layout.digest.commitment : layout.manifestDigest.commitment;
  return {
    name,
    path: `/site/${name}`,
    size: bytes.length,
    contentType: contentTypeOf(name),
    layout,
    commitment,
  };
}

/** What the tape would hold after `f` was deployed. */
function onTape(f: HashedFile, contentType = f.contentType): NamedRecord {
  return {
    address: Keypair.generate().publicKey,
    tape,
    track: trackAddress(f.commitment),
    commitment: f.commitment,
    size: f.size,
    kind: f.layout.kind === 'blob' ? TrackKind.Blob : TrackKind.Manifest,
    updatedAt: 0,
    contentType,
    name: f.name,
  };
}

function track(f: HashedFile, certified: boolean): TrackRecord {
  return {
    tape,
    commitment: f.commitment,
    size: f.size,
    kind: TrackKind.Blob,
    certified,
    refs: 0,
    createdAt: 0,
    contentType: f.contentType,
  };
}

function plan(
  files: HashedFile[],
  names: NamedRecord[],
  tracks: [HashedFile, TrackRecord | null][] = [],
) {
  return planDeploy({
    files,
    names,
    tracks: new Map(tracks.map(([f, r]) => [f.commitment.toString('hex'), r])),
    trackAddress,
  });
}

describe('planDeploy', () => {
  it('publishes everything on a first deploy, the entry apart from the rest', () => {
    const files = [file('app.css', 'body{}'), file('docs/a.html', 'a'), file('index.html', '<h1>')];
    const p = plan(files, []);
    expect(p.unchanged).toHaveLength(0);
    expect(p.publish.map((f) => f.name)).toEqual(['app.css', 'docs/a.html']);
    expect(p.entry?.name).toBe('index.html');
    expect(p.toWrite).toHaveLength(3);
    expect(p.toUpload).toHaveLength(3);
    expect(p.newBytes).toBe(6 + 1 + 4);
    expect(p.stale).toHaveLength(0);
  });

  it('finds nothing to do when the directory is unchanged', () => {
    const files = [file('app.css', 'body{}'), file('index.html', '<h1>')];
    const p = plan(
      files,
      files.map((f) => onTape(f)),
    );
    expect(p.unchanged).toHaveLength(2);
    expect(p.publish).toHaveLength(0);
    expect(p.entry).toBeNull();
    expect(p.toWrite).toHaveLength(0);
    expect(p.toUpload).toHaveLength(0);
    expect(
      commitmentsToLookUp(
        files,
        files.map((f) => onTape(f)),
      ),
    ).toHaveLength(0);
  });

  it('uploads only the file whose bytes changed', () => {
    const before = [file('app.css', 'body{}'), file('index.html', '<h1>')];
    const after = [file('app.css', 'body{color:red}'), before[1]];
    const names = before.map((f) => onTape(f));
    expect(commitmentsToLookUp(after, names)).toEqual([after[0].commitment]);
    const p = plan(after, names, [[after[0], null]]);
    expect(p.publish.map((f) => f.name)).toEqual(['app.css']);
    expect(p.publish[0].current?.track.equals(names[0].track)).toBe(true);
    expect(p.entry).toBeNull();
    expect(p.toWrite.map((t) => t.commitmentHex)).toEqual([after[0].commitment.toString('hex')]);
  });

  it('republishes a file whose content type changed, without uploading its bytes again', () => {
    const f = file('data.json', '{}');
    const p = plan([f], [onTape(f, 'text/plain')], [[f, track(f, true)]]);
    expect(p.publish.map((x) => x.name)).toEqual(['data.json']);
    expect(p.toWrite).toHaveLength(0);
    expect(p.toUpload).toHaveLength(0);
  });

  it('shares one track between files with the same bytes', () => {
    const files = [file('a.txt', 'same'), file('b.txt', 'same'), file('index.html', 'i')];
    const p = plan(files, []);
    expect(p.toWrite).toHaveLength(2);
    expect(p.publish[0].track).toBe(p.publish[1].track);
    expect(p.newBytes).toBe(4 + 1);
  });

  it('resumes an interrupted deploy: existing tracks are not written again, certified ones not uploaded', () => {
    const files = [file('a.txt', 'a'), file('b.txt', 'b'), file('index.html', 'i')];
    const p = plan(
      files,
      [],
      [
        [files[0], track(files[0], true)],
        [files[1], track(files[1], false)],
        [files[2], null],
      ],
    );
    expect(p.toWrite.map((t) => t.path)).toEqual(['/site/index.html']);
    expect(p.toUpload.map((t) => t.path).sort()).toEqual(['/site/b.txt', '/site/index.html']);
    expect(p.newBytes).toBe(1);
  });

  it('lists names the site no longer has as stale, hidden names on the tape included', () => {
    const kept = file('index.html', 'i');
    const gone = onTape(file('old.html', 'o'));
    const wellKnown = onTape(file('.well-known/x', 'w'));
    const p = plan([kept], [onTape(kept), gone, wellKnown]);
    expect(p.stale.map((n) => n.name)).toEqual(['old.html', '.well-known/x']);
  });

  it('plans a file over the segment size as a manifest track of its whole size', () => {
    const big = file('video.mp4', Buffer.alloc(SEGMENT * 2 + 10, 7));
    const p = plan([big, file('index.html', 'i')], []);
    const t = p.publish[0].track!;
    expect(t.kind).toBe(TrackKind.Manifest);
    expect(t.size).toBe(SEGMENT * 2 + 10);
    expect(t.layout.kind === 'manifest' && t.layout.segments).toHaveLength(3);
  });
});
