import { Keypair, TransactionInstruction } from '@solana/web3.js';
import { payer, randomInstruction, seeded } from './random-instructions.spec-support';
import { TransactionBudget } from './transaction-budget';
import { transactionSize } from './transaction-packer';

describe('TransactionBudget', () => {
  it('computes the serialized size exactly, as compiling the message does', () => {
    const rng = seeded(7);
    const shared = Array.from({ length: 6 }, () => Keypair.generate().publicKey);
    for (let round = 0; round < 60; round++) {
      const budget = new TransactionBudget(payer);
      const added: TransactionInstruction[] = [];
      for (let i = 0; i < 8; i++) {
        const next = randomInstruction(shared, rng);
        const expected = transactionSize([...added, next], payer);
        if (expected > 1232) break;
        expect(budget.sizeIf(next)).toBe(expected);
        budget.add(next);
        added.push(next);
        expect(budget.size()).toBe(expected);
      }
    }
  });
});
