import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { UPLOAD_HEADERS } from '../../upload/upload-auth';
import { versionUploadMessage } from '../../upload/version-request-auth';
import { UploadSigner } from './upload-signer';

describe('UploadSigner', () => {
  it('produces exactly the signature tweetnacl makes over the route’s message', () => {
    for (let i = 0; i < 20; i++) {
      const keypair = Keypair.generate();
      const tape = Keypair.generate().publicKey.toBase58();
      const message = (timestamp: number) =>
        versionUploadMessage({
          tape,
          commitment: 'ab'.repeat(32),
          size: i * 1000,
          timestamp,
        });
      const now = 1_700_000_000_000 + i;
      expect(new UploadSigner(keypair).signed(message, now)).toEqual({
        [UPLOAD_HEADERS.signer]: keypair.publicKey.toBase58(),
        [UPLOAD_HEADERS.timestamp]: String(now),
        [UPLOAD_HEADERS.signature]: bs58.encode(
          nacl.sign.detached(message(now), keypair.secretKey),
        ),
      });
    }
  });
});
