import { readyFields, ReadyInfo, readyLine } from './ready-line';

const writer: ReadyInfo = {
  version: '1.2.3',
  url: 'http://127.0.0.1:8080',
  siteSuffix: 'localhost:8080',
  s3Url: 'http://127.0.0.1:8081',
  adminUrl: 'http://127.0.0.1:9464',
  rpcUrl: 'http://127.0.0.1:8899',
  embedded: true,
  role: 'writer',
  programId: 'Tape111111111111111111111111111111111111111',
  gatewayKey: 'Key1111',
  balanceLamports: 1_500_000_000,
};

describe('readyLine', () => {
  it('says what listens where, the role, the key, its balance and the program', () => {
    expect(readyLine(writer)).toBe(
      'tape-gateway 1.2.3 ready: http://127.0.0.1:8080 (sites <label>.localhost:8080, ' +
        'S3 http://127.0.0.1:8081, admin http://127.0.0.1:9464, local network RPC ' +
        'http://127.0.0.1:8899); writer, key Key1111, 1.5 SOL; ' +
        'program Tape111111111111111111111111111111111111111',
    );
  });

  it('a reader on an external RPC: no key, no admin listener, the RPC origin only', () => {
    const line = readyLine({
      ...writer,
      role: 'reader',
      adminUrl: undefined,
      embedded: false,
      rpcUrl: 'https://rpc.example.com/v1/?api-key=secret',
      balanceLamports: undefined,
    });
    expect(line).toContain('S3 http://127.0.0.1:8081, chain RPC https://rpc.example.com)');
    expect(line).toContain('; reader (no key: uploads go to a writer); program');
    expect(line).not.toContain('secret');
    expect(line).not.toContain('admin');
  });

  it('a balance that could not be read is said to be unknown', () => {
    expect(readyLine({ ...writer, balanceLamports: undefined })).toContain(
      'writer, key Key1111, balance unknown;',
    );
  });
});

describe('readyFields', () => {
  it('carries the same facts as JSON fields', () => {
    expect(readyFields(writer)).toEqual({
      version: '1.2.3',
      url: 'http://127.0.0.1:8080',
      site_suffix: 'localhost:8080',
      s3_url: 'http://127.0.0.1:8081',
      admin_url: 'http://127.0.0.1:9464',
      rpc_url: 'http://127.0.0.1:8899',
      embedded_network: true,
      role: 'writer',
      program_id: 'Tape111111111111111111111111111111111111111',
      gateway_key: 'Key1111',
      balance_lamports: 1_500_000_000,
    });
  });
});
