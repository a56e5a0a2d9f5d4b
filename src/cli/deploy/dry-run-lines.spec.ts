import { DryRunReport } from './deploy-dry-run';
import { dryRunJson, dryRunLines } from './dry-run-lines';

function newReport(over: Partial<DryRunReport> = {}): DryRunReport {
  return {
    tape: 'TAPE',
    label: 'label',
    urls: {
      url: 'http://label.localhost:8080/',
      hostUrl: 'http://label.localhost:8080/',
      pathUrl: 'http://127.0.0.1:8080/site/TAPE/',
    },
    baseVersion: 1,
    wouldPublish: true,
    files: 4,
    changed: 2,
    unchanged: 2,
    upload: [
      { name: 'b.txt', size: 2 },
      { name: 'd.txt', size: 1 },
    ],
    uploadTracks: 2,
    uploadBytes: 1250,
    gatewayAsked: true,
    prunable: ['c.txt'],
    prune: false,
    addedBytes: 1250,
    keptAfter: 2500,
    capacity: 10 * 1024 * 1024,
    feeLamports: 15000,
    tokens: 0n,
    resize: null,
    wallet: { address: 'WALLET', lamports: 49_999_985_000, tokens: 99_990_000_000n },
    ...over,
  };
}

describe('dryRunLines', () => {
  it('says what would be uploaded, removed and spent, and that nothing was sent', () => {
    expect(dryRunLines(newReport())).toEqual([
      'dry run:        nothing was signed, sent or uploaded',
      'tape:           TAPE',
      'version:        1 -> 2 (would publish)',
      'files:          4 (2 new or changed, 2 unchanged)',
      'upload:         2 files, 2 tracks, 1.2 KiB (what the gateway lacks)',
      'prune:          1 name would be removed with --prune',
      'bytes added:    1250 (1.2 KiB; kept after: 2.4 KiB of 10 MiB)',
      "SOL:            ~0.000015 (15000 lamports: the Publish's fee; no rent)",
      'storage tokens: 0 (a deploy spends no storage tokens; the tape has room)',
      'wallet:         49.999985 SOL, 99990 storage tokens',
      'URL:            http://label.localhost:8080/',
      'files to upload:',
      '  b.txt (2 bytes)',
      '  d.txt (1 byte)',
      'names --prune would remove:',
      '  c.txt',
    ]);
  });

  it('names the resize a tape too small needs, and a gateway that was not asked', () => {
    const lines = dryRunLines(
      newReport({
        gatewayAsked: false,
        prune: true,
        resize: { add: '600k', addBytes: 614400, tokens: 700_000n, feeLamports: 5000 },
      }),
    );
    expect(lines).toContain(
      'storage tokens: 0 for the deploy; the tape is too small: tape resize --add 600k first (0.7 storage tokens + ~0.000005 SOL)',
    );
    expect(lines).toContain(
      'upload:         2 files, 2 tracks, 1.2 KiB (the gateway could not be asked what it holds: everything counted)',
    );
    expect(lines).toContain('prune:          1 name would be removed (--prune)');
    expect(lines).toContain('names removed by --prune:');
  });

  it('says when nothing would be published', () => {
    const lines = dryRunLines(
      newReport({ wouldPublish: false, upload: [], uploadTracks: 0, uploadBytes: 0, prunable: [] }),
    );
    expect(lines).toContain('version:        1 (nothing changed: nothing would be published)');
    expect(lines).toContain('SOL:            0 (nothing to publish)');
    expect(lines.some((l) => l.startsWith('files to upload'))).toBe(false);
  });
});

describe('dryRunJson', () => {
  it('keeps amounts exact: lamports as numbers, tokens as strings', () => {
    const json = dryRunJson(
      newReport({
        resize: { add: '600k', addBytes: 614400, tokens: 700_000n, feeLamports: 5000 },
      }),
    );
    expect(json).toMatchObject({
      dry_run: true,
      host_url: 'http://label.localhost:8080/',
      path_url: 'http://127.0.0.1:8080/site/TAPE/',
      fee_lamports: 15000,
      tokens: '0',
      resize: { add: '600k', add_bytes: 614400, tokens: '700000', fee_lamports: 5000 },
      wallet: { address: 'WALLET', lamports: 49_999_985_000, tokens: '99990000000' },
    });
  });
});
