import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import {
  objectAddress,
  ProofEntry,
  readTapePointer,
  Refusal,
  RpcAccountAnswer,
  Sha256,
  trackCommitment,
  Verdict,
  verifyAnswer,
  walkVersion,
} from '../../verify/core/tape-verifier';
import { CliError } from '../cli-error';
import { HttpAnswer, VerifyHttp } from './verify-http';
import { fail, Failed, VerifyReport } from './verify-report';
import { selectorSuffix, VerifyTarget } from './verify-target';

const sha256: Sha256 = (data) => createHash('sha256').update(data).digest();
/** Reasons a gateway between two Publishes may give honestly: asked once more. */
const RACY = new Set(['stale_version', 'version_not_kept', 'header_mismatch', 'alias_mismatch']);
const MAX_REDIRECTS = 5;
const PARALLEL = 16;
const MAX_WAITS = 5;

/**
 * `tape verify` (docs/verify.md): fetches answers and proofs through any gateway and checks them
 * with the verifier core against one read of the tape account from the user's RPC.
 */
@Injectable()
export class TapeVerifierService {
  constructor(private readonly http: VerifyHttp) {}

  async verifyOne(target: VerifyTarget, rpcUrl: string): Promise<VerifyReport> {
    let report = await this.once(target, rpcUrl);
    // A Publish between the answer and the RPC read: ask once more, then it is the answer.
    if (report.failure && RACY.has(report.failure.reason)) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      report = await this.once(target, rpcUrl);
    }
    return report;
  }

  /** Every file of the site's current version, each fetched through the site's own routes. */
  async verifyAll(target: VerifyTarget, rpcUrl: string): Promise<VerifyReport> {
    if (target.kind !== 'site') throw new CliError('--all takes a site URL or path');
    if (target.selector)
      throw new CliError('--all checks the current version: give the site URL without a selector');
    const rpc = await this.account(rpcUrl, target.tape);
    const report: VerifyReport = {
      ok: true,
      tape: target.tape,
      slot: rpc.context.slot,
      files: 0,
      bytes: 0,
    };
    try {
      const pointer = rpc.value ? readTapePointer(base64(rpc.value.data[0])) : null;
      if (!pointer) throw fail(target.tape, rpcUrl, 'no_tape', 'the RPC has no such tape account');
      const current = pointer.kept.find((k) => k.version === pointer.current);
      if (!current)
        throw fail(target.tape, rpcUrl, 'no_version', 'the tape has no version published');
      report.version = current.version;
      const manifestUrl = `${target.gateway}/versions/${target.tape}/${current.root}`;
      const manifest = await this.http.get(manifestUrl);
      if (manifest.status !== 200)
        throw fail(
          '(version manifest)',
          manifestUrl,
          'no_proof',
          `the gateway answered ${manifest.status}`,
        );
      let entries: ProofEntry[];
      try {
        entries = (await walkVersion(current.root, splitParts(manifest.body), sha256)).entries;
      } catch (err) {
        if (err instanceof Refusal)
          throw fail('(version manifest)', manifestUrl, err.detail.reason, err.message);
        throw err;
      }
      let next = 0;
      const worker = async () => {
        while (next < entries.length) {
          const entry = entries[next++];
          const checked = await this.checkEntry(target, rpc, current.version, entry);
          report.bytes += checked;
          report.files++;
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
    } catch (err) {
      if (!(err instanceof Failed)) throw err;
      return { ...report, ok: false, failure: err.failure };
    }
    return report;
  }

  private async once(target: VerifyTarget, rpcUrl: string): Promise<VerifyReport> {
    let report: VerifyReport = { ok: true, tape: target.tape, files: 0, bytes: 0 };
    try {
      if (target.kind === 'object') {
        const answer = await this.get(target.url);
        const proofUrl = `${target.gateway}/proof/object/${target.track}`;
        const proof = await this.proof(proofUrl, target.commitment);
        const rpc = await this.account(rpcUrl, target.tape);
        const verdict = await verifyAnswer({
          rpc,
          proof,
          body: answer.body,
          status: answer.status,
          headers: answer.headers,
          expect: { tape: target.tape, commitment: target.commitment },
          sha256,
        });
        return this.report(report, verdict, target.url);
      }
      // A site path: each answer on the way is checked, a `_redirects` redirect included (its
      // proof names the rule); a redirect with no proof (`/docs` -> `/docs/`) is only followed.
      const rpc = await this.account(rpcUrl, target.tape);
      const proofBase = `${target.gateway}/proof/site/${target.tape}${selectorSuffix(target.selector)}`;
      let path = target.path;
      for (let hop = 0; ; hop++) {
        const url = target.siteBase + path;
        const answer = await this.get(url);
        const redirect = answer.status >= 300 && answer.status <= 399 && !!answer.location;
        const proof = redirect
          ? await this.optionalProof(proofBase + path, path)
          : await this.proof(proofBase + path, path);
        if (proof !== undefined) {
          const verdict = await verifyAnswer({
            rpc,
            proof,
            body: redirect ? undefined : answer.body,
            status: answer.status,
            headers: answer.headers,
            expect: {
              tape: target.tape,
              path,
              ...(target.selector && { selector: target.selector }),
            },
            sha256,
          });
          const files = report.files;
          const bytes = report.bytes;
          report = this.report(report, verdict, url);
          report.files += files;
          report.bytes += bytes;
          if (!report.ok) return report;
        }
        if (!redirect) return report;
        const next = new URL(answer.location!, url);
        const full = next.origin + next.pathname;
        if (hop >= MAX_REDIRECTS || !full.startsWith(target.siteBase + '/'))
          throw fail(path, url, 'redirect', `redirected out of the site to ${answer.location}`);
        path = full.slice(target.siteBase.length);
      }
    } catch (err) {
      if (!(err instanceof Failed)) throw err;
      return { ...report, ok: false, failure: err.failure };
    }
  }

  private report(report: VerifyReport, verdict: Verdict, url: string): VerifyReport {
    if (!verdict.ok) {
      const { file, reason, message, range } = verdict;
      return { ...report, ok: false, failure: { file, url, reason, message, range } };
    }
    return {
      ...report,
      version: verdict.version,
      slot: verdict.slot,
      files: 1,
      bytes: verdict.checkedBytes,
    };
  }

  /** A redirect's proof: a `_redirects` rule has one, the gateway's own `/docs` -> `/docs/` none. */
  private async optionalProof(url: string, file: string): Promise<unknown> {
    const answer = await this.get(url);
    if (answer.status === 404) return undefined;
    if (answer.status !== 200)
      throw fail(file, url, 'no_proof', `the gateway answered ${answer.status} for the proof`);
    return this.parseProof(answer, url, file);
  }

  /** One file of a version walked from its manifest: its answer must be the entry's bytes. */
  private async checkEntry(
    target: Extract<VerifyTarget, { kind: 'site' }>,
    rpc: RpcAccountAnswer,
    version: number,
    entry: ProofEntry,
  ): Promise<number> {
    const name = entry.name!;
    const track = objectAddress(target.tape, entry.commitment)!;
    const bySite = siteReachable(name);
    const path = `/${name.split('/').map(encodeURIComponent).join('/')}`;
    const url = bySite ? target.siteBase + path : `${target.gateway}/object/${track}`;
    const answer = await this.get(url);
    const quick =
      answer.status === 200 &&
      answer.headers['x-tape-version'] === String(version) &&
      answer.headers['x-tape-commitment'] === entry.commitment &&
      entry.location.kind !== 'stream' &&
      answer.body.length === entry.size &&
      Buffer.from((await trackCommitment(answer.body, sha256)).commitment).toString('hex') ===
        entry.commitment;
    if (quick) return answer.body.length;
    // Streamed, or something is wrong: the file's own proof says exactly what.
    const proofUrl = bySite
      ? `${target.gateway}/proof/site/${target.tape}${path}`
      : `${target.gateway}/proof/object/${track}`;
    const proof = await this.proof(proofUrl, bySite ? path : track);
    const verdict = await verifyAnswer({
      rpc,
      proof,
      body: answer.body,
      status: bySite ? answer.status : undefined,
      headers: answer.headers,
      expect: bySite
        ? { tape: target.tape, path, version }
        : { tape: target.tape, commitment: entry.commitment, version },
      sha256,
    });
    if (!verdict.ok) throw new Failed({ ...verdict, file: name, url });
    // A forced `_redirects` rule answers the file's path with something else (proved above):
    // the file itself is checked through /object.
    if (bySite && verdict.entry?.commitment !== entry.commitment && ruled(proof))
      return this.checkEntryByObject(target, rpc, version, entry, track);
    if (verdict.entry?.commitment !== entry.commitment)
      throw fail(
        name,
        url,
        'entry_mismatch',
        `the gateway proves ${verdict.entry?.name ?? 'another answer'} for ${name}`,
      );
    return answer.body.length;
  }

  private async checkEntryByObject(
    target: Extract<VerifyTarget, { kind: 'site' }>,
    rpc: RpcAccountAnswer,
    version: number,
    entry: ProofEntry,
    track: string,
  ): Promise<number> {
    const url = `${target.gateway}/object/${track}`;
    const answer = await this.get(url);
    const verdict = await verifyAnswer({
      rpc,
      proof: await this.proof(`${target.gateway}/proof/object/${track}`, track),
      body: answer.body,
      headers: answer.headers,
      expect: { tape: target.tape, commitment: entry.commitment, version },
      sha256,
    });
    if (!verdict.ok) throw new Failed({ ...verdict, file: entry.name!, url });
    return answer.body.length;
  }

  private async proof(url: string, file: string): Promise<unknown> {
    const answer = await this.get(url);
    if (answer.status !== 200)
      throw fail(file, url, 'no_proof', `the gateway answered ${answer.status} for the proof`);
    return this.parseProof(answer, url, file);
  }

  private parseProof(answer: HttpAnswer, url: string, file: string): unknown {
    try {
      return JSON.parse(Buffer.from(answer.body).toString('utf8'));
    } catch {
      throw fail(file, url, 'malformed_proof', 'the proof is not JSON');
    }
  }

  private async account(rpcUrl: string, tape: string): Promise<RpcAccountAnswer> {
    let reply: { result?: RpcAccountAnswer; error?: { message: string } };
    try {
      reply = (await this.http.postJson(rpcUrl, {
        jsonrpc: '2.0',
        id: 1,
        method: 'getAccountInfo',
        params: [tape, { encoding: 'base64', commitment: 'confirmed' }],
      })) as typeof reply;
    } catch (err) {
      throw new CliError(`cannot reach the chain RPC at ${rpcUrl}: ${(err as Error).message}`);
    }
    if (!reply.result)
      throw new CliError(
        `the RPC at ${rpcUrl} refused getAccountInfo: ${reply.error?.message ?? 'no result'}`,
      );
    return reply.result;
  }

  /**
   * One GET; a gateway's 429 (or 503) with `Retry-After` is waited out (a whole site is more than
   * one window of the default site budget: 1,200 requests a minute), up to MAX_WAITS times.
   */
  private async get(url: string): Promise<HttpAnswer> {
    for (let waits = 0; ; waits++) {
      let answer: HttpAnswer;
      try {
        answer = await this.http.get(url);
      } catch (err) {
        throw new CliError(`cannot fetch ${url}: ${(err as Error).message}`);
      }
      const retryAfter = Number(answer.headers['retry-after']);
      const busy = answer.status === 429 || answer.status === 503;
      if (!busy || waits >= MAX_WAITS || !(retryAfter >= 0)) return answer;
      await new Promise((resolve) => setTimeout(resolve, Math.min(retryAfter, 60) * 1000 + 100));
    }
  }
}

/** Names the site routes answer as themselves (docs/site.md, "Path mapping"). */
function siteReachable(name: string): boolean {
  return (
    name !== '_site.json' &&
    name !== '_redirects' &&
    name !== '_headers' &&
    !name.endsWith('/') &&
    !name.startsWith('/') &&
    !name.includes('//') &&
    !name.includes('\\')
  );
}

/** Whether a proof's answer is one a `_redirects` rule decides. */
function ruled(proof: unknown): boolean {
  const target = (proof as { target?: { rule?: unknown } } | null)?.target;
  return typeof target?.rule === 'number';
}

/** `GET /versions/{tape}/{root}`: the root, then every node, each as u32le length and bytes. */
function splitParts(body: Uint8Array): Uint8Array[] {
  const parts: Uint8Array[] = [];
  const view = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  for (let at = 0; at < view.length;) {
    if (at + 4 > view.length) break;
    const length = view.readUInt32LE(at);
    parts.push(view.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return parts;
}

function base64(text: string): Buffer {
  return Buffer.from(text, 'base64');
}
