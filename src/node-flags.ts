/**
 * The Node (V8) flags the gateway runs with. `npm start` passes them; the test and benchmark
 * harnesses spawn the gateway with the same list, so they measure what operators run.
 *
 * `--no-memory-reducer`: about 8 s after start, once allocation goes quiet, V8's memory reducer
 * shrinks the heap of an idle process, young generation included. A server that then takes load
 * keeps the small young generation (request garbage dies young, so V8 never sees a reason to
 * grow it back) and collects it about three times as often for the rest of its life: measured
 * on the 4 KiB site page, 45-50k req/s instead of 60-65k (`docs/operator.md`, "Node flags").
 * A gateway is idle after nearly every start, so without the flag nearly every gateway runs
 * slow. The cost is memory an idle gateway keeps (its young generation, 32 MiB at most).
 *
 * V8 reads the flag when the heap is set up: it cannot be set from inside the process
 * (`v8.setFlagsFromString` is too late) nor through NODE_OPTIONS (Node refuses it there).
 */
export const GATEWAY_NODE_FLAGS: readonly string[] = ['--no-memory-reducer'];

/** The flags of `GATEWAY_NODE_FLAGS` this process was started without. */
export function missingNodeFlags(execArgv: readonly string[] = process.execArgv): string[] {
  return GATEWAY_NODE_FLAGS.filter((flag) => !execArgv.includes(flag));
}
