import { Keypair } from '@solana/web3.js';
import { signUpload } from '../../upload/upload-auth';
import { UploadSigner } from './upload-signer';

describe('UploadSigner', () => {
  it('produces exactly the headers of signUpload', () => {
    for (let i = 0; i < 20; i++) {
      const keypair = Keypair.generate();
      const claim = {
        tape: Keypair.generate().publicKey.toBase58(),
        track: Keypair.generate().publicKey.toBase58(),
        commitment: 'ab'.repeat(32),
        size: i * 1000,
      };
      const now = 1_700_000_000_000 + i;
      expect(new UploadSigner(keypair).headers(claim, now)).toEqual(
        signUpload(claim, keypair, now),
      );
    }
  });
});
