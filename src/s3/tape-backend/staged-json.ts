import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Small JSON records written whole or not at all (the multipart spool's `upload.json`,
 * `part-<n>.json`, `completed.json`): written to a temporary name beside their path, then renamed
 * into place, so a reader or a crash never sees half of one.
 */
export async function writeJsonAtomically(path: string, value: unknown): Promise<void> {
  await (await stageJson(path, value)).commit();
}

/** A JSON file written beside its path: `commit` renames it into place, `discard` drops it. */
export interface StagedJson {
  commit(): Promise<void>;
  discard(): Promise<void>;
}

export async function stageJson(path: string, value: unknown): Promise<StagedJson> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const discard = async () => {
    await rm(temporary, { force: true });
  };
  try {
    await writeFile(temporary, JSON.stringify(value), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    await discard();
    throw error;
  }
  return {
    commit: async () => {
      try {
        await rename(temporary, path);
      } catch (error) {
        await discard();
        throw error;
      }
    },
    discard,
  };
}
