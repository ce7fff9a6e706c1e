// The workload of the Node clients of the bench, the same as the Java clients' (mcp.bench.ClientRun): connect,
// list tools (cold, then 5 warm), sequential echo calls after a warm-up, then N calls in flight for a few
// seconds; every answer is checked. Prints one line "BENCH-RESULT {json}". A client script (ts-client.mjs,
// ts-client-v2.mjs) calls run() with its name and a function that makes its client for the server command.
// Command line of a client script: [--t0 NANOS] [--warmup N] [--calls N] [--inflight N] [--seconds S]
//   [--expect-prefix TEXT] [--expect-tools N] [--expect-protocol VERSION] -- SERVER COMMAND...
import { readFileSync } from "node:fs";

/**
 * @param name the client's name in the report
 * @param makeClient (serverCommand) => { connect, listTools (resolves to the tool count, every page), echo
 *     (message => the first text content), close, protocolVersion (=> the version spoken, or undefined) }
 */
export async function run(name, makeClient) {
  const argv = process.argv.slice(2);
  const split = argv.indexOf("--");
  const opts = {};
  for (let i = 0; i + 1 < split; i += 2) opts[argv[i]] = argv[i + 1];
  const server = argv.slice(split + 1);
  const num = (name, fallback) => (opts[name] === undefined ? fallback : Number(opts[name]));
  const t0 = opts["--t0"] === undefined ? null : BigInt(opts["--t0"]);
  const warmup = num("--warmup", 2000);
  const calls = num("--calls", 5000);
  const inflight = num("--inflight", 16);
  const seconds = num("--seconds", 3);
  const prefix = opts["--expect-prefix"] ?? "";
  const expectTools = num("--expect-tools", -1);
  const expectProtocol = opts["--expect-protocol"];

  const now = () => process.hrtime.bigint();
  const ms = (nanos) => Number(nanos) / 1e6;
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const n = s.length;
    return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  };
  const procStatus = () => {
    const values = {};
    try {
      for (const line of readFileSync("/proc/self/status", "latin1").split("\n")) {
        const parts = line.split(/\s+/);
        if (parts.length >= 3 && parts[2] === "kB") values[parts[0].replace(":", "")] = Number(parts[1]);
      }
    } catch {
      // not Linux
    }
    return values;
  };

  const result = { client: name };
  let mismatches = 0;
  let failures = 0;
  let firstProblem = null;
  const note = (text) => {
    if (firstProblem === null) firstProblem = text;
  };

  const { connect, listTools, echo, close, protocolVersion } = makeClient(server);

  try {
    const spawnStart = now();
    await connect();
    const initialized = now();
    const version = protocolVersion();
    if (version !== undefined) result.protocolVersion = version;
    if (expectProtocol !== undefined && version !== expectProtocol) {
      mismatches++;
      note(`speaks protocol ${version}, expected ${expectProtocol}`);
    }
    result.spawnToInitMs = ms(initialized - spawnStart);
    if (t0 !== null) result.launchToInitMs = ms(initialized - t0);

    let start = now();
    const tools = await listTools();
    result.listColdMs = ms(now() - start);
    result.tools = tools;
    if (expectTools >= 0 && tools !== expectTools) {
      mismatches++;
      note(`listed ${tools} tools, expected ${expectTools}`);
    }
    const lists = [];
    for (let i = 0; i < 5; i++) {
      start = now();
      const again = await listTools();
      lists.push(ms(now() - start));
      if (again !== tools) mismatches++;
    }
    result.listWarmMs = median(lists);

    for (let i = 0; i < warmup; i++) {
      const message = "w" + i;
      const text = await echo(message);
      if (text !== prefix + message) {
        mismatches++;
        note(`echo ${message} -> ${text}`);
      }
    }
    const latencies = [];
    const seqCpu = process.cpuUsage();
    for (let i = 0; i < calls; i++) {
      const message = "s" + i;
      const begin = now();
      let text;
      try {
        text = await echo(message);
      } catch (e) {
        failures++;
        note("call failed: " + e);
        continue;
      }
      latencies.push(Number(now() - begin));
      if (text !== prefix + message) {
        mismatches++;
        note(`echo ${message} -> ${text}`);
      }
    }
    const seqUsed = process.cpuUsage(seqCpu);
    latencies.sort((a, b) => a - b);
    result.seqCalls = calls;
    result.seqCpuUsPerCall = (seqUsed.user + seqUsed.system) / calls;
    result.p50Us = latencies[Math.floor(calls / 2)] / 1000;
    result.p99Us = latencies[Math.min(latencies.length - 1, Math.ceil(calls * 0.99) - 1)] / 1000;

    let completed = 0;
    let last = now();
    const tpStart = now();
    const deadline = tpStart + BigInt(Math.round(seconds * 1e9));
    const lane = async (id) => {
      for (let seq = 0; now() < deadline; seq++) {
        const message = `t${id}-${seq}`;
        try {
          const text = await echo(message);
          completed++;
          if (text !== prefix + message) {
            mismatches++;
            note(`echo ${message} -> ${text}`);
          }
        } catch (e) {
          failures++;
          note("call failed: " + e);
        }
        last = now();
      }
    };
    const tpCpu = process.cpuUsage();
    await Promise.all(Array.from({ length: inflight }, (_, i) => lane(i)));
    const tpUsed = process.cpuUsage(tpCpu);
    if (completed > 0) result.tpCpuUsPerCall = (tpUsed.user + tpUsed.system) / completed;
    result.inflight = inflight;
    result.tpCalls = completed;
    result.callsPerSec = completed / (Number(last - tpStart) / 1e9);

    if (global.gc) global.gc();
    result.heapMb = process.memoryUsage().heapUsed / 1048576;
    const status = procStatus();
    if (status.VmHWM) {
      result.rssPeakMb = status.VmHWM / 1024;
      result.rssMb = status.VmRSS / 1024;
    }
    await close();
  } catch (e) {
    result.error = String(e && e.stack ? e.stack : e);
  }
  result.mismatches = mismatches;
  result.failures = failures;
  if (firstProblem !== null) result.firstProblem = firstProblem;
  process.stdout.write("BENCH-RESULT " + JSON.stringify(result) + "\n", () =>
    process.exit(result.error || mismatches || failures ? 1 : 0));
}
