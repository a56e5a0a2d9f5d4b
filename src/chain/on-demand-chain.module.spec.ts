import { Test } from '@nestjs/testing';
import { validateChainConfig } from '../config/config-loader';
import { ChainServices } from './chain.module';
import { OnDemandChain, OnDemandChainModule } from './on-demand-chain.module';

// Nothing here needs an answer: a Connection opens no socket until it is used.
const config = () => validateChainConfig({ rpc_url: 'http://127.0.0.1:1' });

describe('OnDemandChain', () => {
  it('connects once, on first use, and closes that Connection with the app', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [OnDemandChainModule] }).compile();
    const sut = moduleRef.get(OnDemandChain);
    const close = jest.spyOn(ChainServices.prototype, 'close');
    try {
      const chainConfig = config();
      const chain = sut.connect(chainConfig);
      expect(sut.connect(chainConfig)).toBe(chain);
      expect(chain.rpc.url).toBe('http://127.0.0.1:1');
      expect(() => sut.connect(config())).toThrow('already connected to another chain');
      await moduleRef.close();
      expect(close).toHaveBeenCalledTimes(1);
    } finally {
      close.mockRestore();
    }
  });

  it('closes nothing when nothing connected', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [OnDemandChainModule] }).compile();
    const close = jest.spyOn(ChainServices.prototype, 'close');
    try {
      await moduleRef.close();
      expect(close).not.toHaveBeenCalled();
    } finally {
      close.mockRestore();
    }
  });
});
