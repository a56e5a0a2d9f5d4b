/**
 * End to end: C compiled by clang-19, linked by linkSbf, deployed and run by agave's SVM
 * (litesvm). Needs clang-19 on PATH; without it the spec fails (it is not skipped).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { address, getTransactionDecoder, lamports } from '@solana/kit';
import { Keypair, Transaction, TransactionInstruction } from '@solana/web3.js';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { CLANG, compileSbfObject } from './compile-c';
import { linkSbf } from './link';

const MAIN_C = String.raw`
#include <stdint.h>

void sol_log_(const char *message, uint64_t length);
uint64_t shout(const char *message, uint64_t length); /* defined in helper.c */

static const char *const greetings[] = {
  "first entry",
  "second entry, read through a pointer table",
  "third entry",
};

static uint64_t twice(uint64_t x) { return 2 * x; }
static uint64_t thrice(uint64_t x) { return 3 * x; }
static uint64_t (*const operations[])(uint64_t) = { twice, thrice };

static uint64_t length_of(const char *text) {
  uint64_t n = 0;
  while (text[n] != 0) n++;
  return n;
}

static void log_text(const char *text) { sol_log_(text, length_of(text)); }

/* Writes "<prefix><decimal>" into out; returns its length. */
static uint64_t format_number(char *out, const char *prefix, uint64_t value) {
  uint64_t n = 0;
  while (prefix[n] != 0) { out[n] = prefix[n]; n++; }
  char digits[20];
  uint64_t count = 0;
  do { digits[count++] = (char)('0' + value % 10); value /= 10; } while (value != 0);
  while (count > 0) out[n++] = digits[--count];
  return n;
}

uint64_t entrypoint(const uint8_t *input) {
  /* The input starts with the number of accounts (u64): 0 here, but unknown to the compiler. */
  uint64_t accounts = *(const uint64_t *)input;

  log_text("hello from .rodata");
  log_text(greetings[accounts + 1]);

  volatile uint8_t buffer[1024];
  for (uint64_t i = 0; i < sizeof buffer; i++) buffer[i] = (uint8_t)(i * 7 + accounts);
  uint64_t sum = 0;
  for (uint64_t i = 0; i < sizeof buffer; i++) sum += buffer[i];
  char line[64];
  sol_log_(line, format_number(line, "stack buffer sum ", sum));

  sol_log_(line, format_number(line, "through a function pointer: ", operations[accounts & 1](21)));

  if (shout("called across objects", 21) != 42) return 1;
  return 0;
}
`;

const HELPER_C = String.raw`
#include <stdint.h>

void sol_log_(const char *message, uint64_t length);
void sol_log_64_(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e);

uint64_t shout(const char *message, uint64_t length) {
  sol_log_(message, length);
  sol_log_64_(1, 2, 3, 4, 5);
  return 42;
}
`;

function requireClang(): void {
  const probe = spawnSync(CLANG, ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(
      `${CLANG} is not on PATH (${probe.error?.message ?? `exit ${probe.status}`}): install ` +
        'clang-19 (apt-get install -y clang-19) to run the SBF linker integration spec',
    );
  }
}

function runOnce(program: Uint8Array): string[] {
  const svm = new LiteSVM();
  const programId = Keypair.generate().publicKey;
  svm.addProgram(address(programId.toBase58()), program);
  const payer = Keypair.generate();
  svm.airdrop(address(payer.publicKey.toBase58()), lamports(1_000_000_000n));

  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: svm.latestBlockhash() });
  tx.add(new TransactionInstruction({ programId, keys: [], data: Buffer.alloc(0) }));
  tx.sign(payer);
  const result = svm.sendTransaction(getTransactionDecoder().decode(tx.serialize()));
  if (result instanceof FailedTransactionMetadata) {
    throw new Error(`transaction failed: ${result.toString()}\n${result.meta().logs().join('\n')}`);
  }
  return result.logs();
}

describe('linkSbf + litesvm (clang-19)', () => {
  let dir: string;
  let objects: { name: string; bytes: Buffer }[];

  beforeAll(() => {
    requireClang();
    dir = mkdtempSync(join(tmpdir(), 'sbf-link-'));
    objects = [compileSbfObject(dir, 'main', MAIN_C), compileSbfObject(dir, 'helper', HELPER_C)];
  });

  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('compiles objects that need the linker: merge sections, pointer tables, syscalls, a global call', () => {
    const main = objects[0].bytes.toString('latin1');
    expect(main).toContain('.rodata.str1.1');
    expect(main).toContain('.rel.rodata');
    expect(main).toContain('sol_log_');
  });

  it('links a program the runtime deploys and runs', () => {
    const program = linkSbf(objects);
    const logs = runOnce(program).filter((line) => line.startsWith('Program log: '));
    expect(logs).toEqual([
      'Program log: hello from .rodata',
      'Program log: second entry, read through a pointer table',
      `Program log: stack buffer sum ${4 * ((255 * 256) / 2)}`,
      'Program log: through a function pointer: 42',
      'Program log: called across objects',
      'Program log: 0x1, 0x2, 0x3, 0x4, 0x5',
    ]);
  });

  it('links the same objects to the same bytes', () => {
    expect(linkSbf(objects).equals(linkSbf(objects))).toBe(true);
  });
});
