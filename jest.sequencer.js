/**
 * The order in which Jest's two workers (jest.config.js) take the test files: longest first, so
 * that long e2e files do not land at the end of the run while the other worker idles, and the
 * CPU-bound files (CPU_BOUND below) one after another, each beside files that mostly wait.
 * Jest's own sequencer orders by time only from its perf cache, which a clean clone (CI) does not
 * have: there it orders by file size. Here a file's time is Jest's cached time when there is
 * one, else the estimate below (seconds in one serial run on 2 cores); files in neither (the
 * unit specs, ~1 s each) go last, biggest first.
 */
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ESTIMATE_S = {
  'test/cli-deploy.e2e-spec.ts': 144,
  'test/cli.e2e-spec.ts': 112,
  'test/cli-ecosystem.e2e-spec.ts': 100, // half of it waits for a tape's warning window
  'test/cli-busy-gateway.e2e-spec.ts': 90,
  'test/network-program-id.e2e-spec.ts': 89,
  'test/network-deploy.e2e-spec.ts': 85,
  'test/track-store-replicas.e2e-spec.ts': 84,
  'test/site-settings.e2e-spec.ts': 80,
  'program/test/differential.spec.ts': 79,
  'test/cli-package.e2e-spec.ts': 75, // 228 before its SQLite came prebuilt
  'test/s3-tape-refusals.e2e-spec.ts': 58,
  'test/track-store-s3.e2e-spec.ts': 55,
  'test/peers-reader.e2e-spec.ts': 40, // a localnet, two gateways, a deploy, a third gateway
  'test/browser-isolation.e2e-spec.ts': 54,
  'test/s3-retry-sync.e2e-spec.ts': 50,
  'test/s3-tape-operator.e2e-spec.ts': 47,
  'test/s3-tape-sync.e2e-spec.ts': 46,
  'test/track-store-readonly.e2e-spec.ts': 44,
  'test/s3-tape-writes.e2e-spec.ts': 43,
  'test/s3-spool-budget.e2e-spec.ts': 39,
  'test/site-routes.e2e-spec.ts': 36,
  'test/metering-gateway.e2e-spec.ts': 31,
  'test/s3-tape-multipart.e2e-spec.ts': 31,
  'test/s3-retries.e2e-spec.ts': 30,
  'test/listener-timeouts.e2e-spec.ts': 29,
  'test/browser-site.e2e-spec.ts': 27,
  'test/verify.e2e-spec.ts': 75,
  'test/browser-verify.e2e-spec.ts': 30,
  'test/track-gc.e2e-spec.ts': 25,
  'test/version-gc-defaults.e2e-spec.ts': 28,
  'test/s3-protocol.e2e-spec.ts': 22,
  'test/domains-gateway.e2e-spec.ts': 19,
  'test/metering-redis.e2e-spec.ts': 19,
  'test/s3-object-parts.e2e-spec.ts': 17,
  'test/observability.e2e-spec.ts': 16,
  'test/request-targets.e2e-spec.ts': 16,
  'test/site-paths.e2e-spec.ts': 16,
  'test/s3-metadata-checksums.e2e-spec.ts': 16,
  'test/localnet-durability.e2e-spec.ts': 15,
  'test/upload-expiry.e2e-spec.ts': 14,
  'test/version-gc.e2e-spec.ts': 14,
  'test/access-log-redaction.e2e-spec.ts': 14,
  'test/chain-rpc-faults.e2e-spec.ts': 14,
  'src/cli/deploy/track-uploader.spec.ts': 13,
  'test/localnet-tape-program.e2e-spec.ts': 10,
  'test/upload.e2e-spec.ts': 9,
  'test/gateway-shell.e2e-spec.ts': 9,
  'test/localnet-rpc-limits.e2e-spec.ts': 8,
  'test/object-streaming.e2e-spec.ts': 8,
};

/**
 * Files that keep both cores busy on their own (many CLI processes at once, a TypeScript build,
 * SBF programs run in-process, a Ceph cluster with three gateways). Two of them at once only share the CPU, and their concurrent
 * tests run into their timeouts; one of them beside a file that mostly waits costs little.
 */
const CPU_BOUND = new Set([
  'test/cli-package.e2e-spec.ts',
  'test/cli-deploy.e2e-spec.ts',
  'test/cli.e2e-spec.ts',
  'test/cli-ecosystem.e2e-spec.ts',
  'test/network-program-id.e2e-spec.ts',
  'test/network-deploy.e2e-spec.ts',
  'program/test/differential.spec.ts',
  // 80 s alone; 84-240 s in CI runs beside a CLI file, whose processes starve its Ceph daemons.
  'test/track-store-replicas.e2e-spec.ts',
]);

class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    const seconds = (test) => {
      const cached = this._getCache(test)[test.path];
      if (cached && cached[1] > 0) return cached[1] / 1000;
      return ESTIMATE_S[this.name(test)] ?? 0;
    };
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    const keyed = tests.map((test) => ({ test, s: seconds(test), size: size(test) }));
    keyed.sort((a, b) => b.s - a.s || b.size - a.size);
    return this.interleave(keyed).map((k) => k.test);
  }

  name(test) {
    return relative(test.context.config.rootDir, test.path);
  }

  /**
   * Two lanes as two workers would run them: the CPU-bound files one after the other in the first
   * lane, every other file, longest first, in whichever lane ends sooner. The queue is the files
   * in the order the lanes start them, so a worker that finishes a file usually picks up the one
   * its lane planned next, and the CPU-bound files mostly run beside files that wait.
   */
  interleave(keyed) {
    const lanes = [
      { end: 0, items: [] },
      { end: 0, items: [] },
    ];
    const add = (lane, k) => {
      lane.items.push({ k, start: lane.end });
      lane.end += Math.max(k.s, 0.5);
    };
    for (const k of keyed) if (CPU_BOUND.has(this.name(k.test))) add(lanes[0], k);
    for (const k of keyed) {
      if (CPU_BOUND.has(this.name(k.test))) continue;
      add(lanes[0].end <= lanes[1].end ? lanes[0] : lanes[1], k);
    }
    return [...lanes[0].items, ...lanes[1].items].sort((a, b) => a.start - b.start).map((i) => i.k);
  }
}

module.exports = LongestFirstSequencer;
