// The JavaScript/TypeScript side of state.run_code: runs inside `deno run` with no
// permissions. It speaks JSON lines with the host on stdin/stdout: a start message first,
// then replies to bridged calls; it sends logs, reports, calls and one `done`.
// The host writes the code to user.ts (or .js) with `import "./harness.js";` put in front of
// its first line, and an entry module that imports the code and calls `finish` with it.

/** @typedef {{globals: Record<string, unknown>, execute: {fn: string, args: unknown[]}}} Start */

const encoder = new TextEncoder();
const stdout = Deno.stdout;

/** @param {object} message */
function send(message) {
  stdout.writeSync(encoder.encode(`${JSON.stringify(message)}\n`));
}

/** @param {unknown[]} parts */
function text(parts) {
  return parts
    .map((part) => {
      if (typeof part === "string") return part;
      try {
        return JSON.stringify(part) ?? String(part);
      } catch {
        return String(part);
      }
    })
    .join(" ");
}

/** @type {Map<number, {resolve: (v: unknown) => void, reject: (e: Error) => void}>} */
const pending = new Map();
let nextCall = 1;

/** A bridged host function, as the generated bridge modules call it. */
function callHost(module, name, args) {
  const id = nextCall++;
  send({ t: "call", id, module, name, args });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

const decoder = new TextDecoder();
let buffered = "";

/** The next line of stdin, read without blocking the event loop; null at the end. */
async function nextLine() {
  const chunk = new Uint8Array(1 << 16);
  for (;;) {
    const index = buffered.indexOf("\n");
    if (index >= 0) {
      const line = buffered.slice(0, index);
      buffered = buffered.slice(index + 1);
      return line;
    }
    const read = await Deno.stdin.read(chunk);
    if (read === null) return null;
    buffered += decoder.decode(chunk.subarray(0, read), { stream: true });
  }
}

/** @param {unknown} error */
function describe(error) {
  const name = error instanceof Error ? error.name : "Error";
  const message = error instanceof Error ? error.message : String(error);
  const stack = error instanceof Error ? error.stack || "" : "";
  const match = stack.match(/user\.[jt]s:(\d+):(\d+)/);
  return { name, message, location: match ? `line ${match[1]}, column ${match[2]}` : null };
}

// Set up before the code's module body runs: the code's module imports this one first.
/** @type {Start} */
const start = JSON.parse((await nextLine()) ?? "{}");
// Replies to bridged calls arrive for as long as the code runs.
(async () => {
  for (let line = await nextLine(); line !== null; line = await nextLine()) {
    const reply = JSON.parse(line);
    const waiter = pending.get(reply.id);
    if (!waiter) continue;
    pending.delete(reply.id);
    if (reply.ok) waiter.resolve(reply.value);
    else waiter.reject(new Error(reply.error));
  }
})();
for (const level of ["log", "info", "warn", "error", "debug"]) {
  console[level] = (...parts) => send({ t: "log", level, text: text(parts) });
}
globalThis[Symbol.for("threadlab.bridge")] = callHost;
globalThis.report = (value) => send({ t: "report", value });
for (const [name, value] of Object.entries(start.globals)) globalThis[name] = value;
// A promise that never settles must stay pending until the host ends the run: this timer
// keeps the event loop alive.
const keepAlive = setInterval(() => {}, 1 << 30);
// An exception thrown by the module body itself is the run's error, not a crash.
globalThis.addEventListener("error", (event) => {
  event.preventDefault();
  send({ t: "done", ok: false, error: describe(event.error) });
  Deno.exit(0);
});
globalThis.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  send({ t: "done", ok: false, error: describe(event.reason) });
  Deno.exit(0);
});

/**
 * Run what `execute` names in the code's module and send the outcome.
 * @param {Record<string, unknown>} module
 */
export async function finish(module) {
  try {
    const target = start.execute.fn === "default" ? module.default : module[start.execute.fn];
    if (target === undefined) {
      throw new Error(`the code has no export named ${JSON.stringify(start.execute.fn)}`);
    }
    const value = typeof target === "function" ? await target(...start.execute.args) : await target;
    let encoded;
    try {
      encoded = JSON.stringify(value === undefined ? null : value);
    } catch (error) {
      throw new TypeError(`the result is not JSON-serialisable: ${describe(error).message}`);
    }
    stdout.writeSync(encoder.encode(`{"t":"done","ok":true,"value":${encoded}}\n`));
  } catch (error) {
    send({ t: "done", ok: false, error: describe(error) });
  } finally {
    clearInterval(keepAlive);
  }
  Deno.exit(0);
}
