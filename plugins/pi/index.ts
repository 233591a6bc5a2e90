/**
 * funes for pi: `recall` and `get` tools over the funes memory, and the per-turn hook.
 *
 * pi has no MCP, so each tool call runs the funes CLI (`funes recall --format agent …`,
 * `funes get …`) and returns its agent-format text. After every prompt (`agent_end`) the session
 * file pi reports is handed to `funes hook pi`, which queues it and returns at once; the indexing
 * itself runs in a detached funes worker, so pi is never blocked.
 *
 * `funes add pi` writes `funes.json` beside this file with the funes command and the bound memory;
 * `FUNES_BIN` (a path) and `FUNES_MEMORY` (a memory spec) override them for one run.
 */
import { Type } from "typebox";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

interface FunesConfig {
  command: string[];
  memory: string | null;
}

const TOOL_TIMEOUT_MS = 120_000;
// `funes hook` answers within ~150 ms; this bound only matters if funes is broken or missing.
const HOOK_WAIT_MS = 2_000;

function ownDir(): string {
  try {
    return dirname(fileURLToPath(import.meta.url));
  } catch {
    return __dirname;
  }
}

function loadConfig(): FunesConfig {
  const config: FunesConfig = { command: ["funes"], memory: null };
  const file = join(ownDir(), "funes.json");
  if (existsSync(file)) {
    try {
      const saved = JSON.parse(readFileSync(file, "utf8"));
      if (Array.isArray(saved.command) && saved.command.length > 0) config.command = saved.command;
      if (typeof saved.memory === "string" && saved.memory) config.memory = saved.memory;
    } catch {
      // A damaged funes.json falls back to `funes` on PATH; `funes add pi` rewrites it.
    }
  }
  const bin = process.env.FUNES_BIN?.trim();
  if (bin) config.command = [bin];
  const memory = process.env.FUNES_MEMORY?.trim();
  if (memory) config.memory = memory;
  return config;
}

function memoryArgs(config: FunesConfig, override?: string): string[] {
  const memory = override?.trim() || config.memory;
  return memory ? ["--memory", memory] : [];
}

export default function (pi: ExtensionAPI) {
  const config = loadConfig();
  const [program, ...baseArgs] = config.command;

  async function runFunes(tool: string, args: string[], signal?: AbortSignal) {
    const result = await pi.exec(program, [...baseArgs, ...args], { signal, timeout: TOOL_TIMEOUT_MS });
    const text =
      result.code === 0
        ? result.stdout.trim() || "no results"
        : `${tool} error: ${(result.stderr || result.stdout).trim() || `funes exited with ${result.code}`}`;
    return { content: [{ type: "text" as const, text }], details: { exitCode: result.code } };
  }

  pi.registerTool({
    name: "recall",
    label: "funes recall",
    description:
      "Search the durable memory of past coding-agent sessions (this and other agents) for " +
      "passages matching a query. Use it when the user refers to earlier work, before " +
      "re-investigating something a past session may have settled, and before asserting what " +
      "was or was not done. Each hit shows its time, agent, project, session and a " +
      "`get <session_id> <turn_uuid>` line to read the whole turn with the `get` tool.",
    promptSnippet: "Search memory of past agent sessions (decisions, fixes, findings)",
    promptGuidelines: [
      "Use recall when the user mentions earlier work or a past decision, then drill into a hit with get.",
    ],
    parameters: Type.Object({
      query: Type.String({ description: "what to look for, in natural words" }),
      k: Type.Optional(Type.Integer({ description: "number of hits (default 5)", minimum: 1, maximum: 50 })),
      harness: Type.Optional(Type.String({ description: "only this agent: claude, codex, pi, hermes, opencode or copilot" })),
      has: Type.Optional(Type.String({ description: "only passages holding this exact text (case-insensitive, like grep -Fi)" })),
      memory: Type.Optional(Type.String({ description: "another memory to read (path or ORG/REPO)" })),
    }),
    async execute(_toolCallId, params, signal) {
      const args = ["recall", "--format", "agent"];
      if (params.k) args.push("-k", String(params.k));
      if (params.harness) args.push("--harness", params.harness);
      if (params.has) args.push("--has", params.has);
      args.push(...memoryArgs(config, params.memory), "--", params.query);
      return runFunes("recall", args, signal);
    },
  });

  pi.registerTool({
    name: "get",
    label: "funes get",
    description:
      "Read one place of a past session from the funes memory: the session and seq printed on " +
      "a recall entry's `funes get SESSION SEQ` line. About 2,000 characters by default; " +
      "`grep` prints only the lines holding given words, `full` everything.",
    parameters: Type.Object({
      session_id: Type.String({ description: "session handle from a recall entry" }),
      turn_uuid: Type.String({ description: "the entry's seq (or a turn id)" }),
      grep: Type.Optional(Type.String({ description: "only the lines holding these words" })),
      context: Type.Optional(
        Type.Integer({ description: "with grep: lines shown each side (default 1)", minimum: 0, maximum: 20 }),
      ),
      full: Type.Optional(Type.Boolean({ description: "everything, whole (expensive)" })),
      window: Type.Optional(Type.Integer({ description: "turns either side to include (default 0)", minimum: 0 })),
      memory: Type.Optional(Type.String({ description: "the memory the hit came from" })),
    }),
    async execute(_toolCallId, params, signal) {
      const args = ["get", "--format", "agent"];
      if (params.grep) args.push("--grep", params.grep);
      if (params.context !== undefined) args.push("--context", String(params.context));
      if (params.full) args.push("--full");
      if (params.window !== undefined) args.push("--window", String(params.window));
      args.push(...memoryArgs(config, params.memory), "--", params.session_id, params.turn_uuid);
      return runFunes("get", args, signal);
    },
  });

  pi.registerTool({
    name: "timeline",
    label: "funes timeline",
    description:
      "A past session's course from the funes memory, one line a step (asks, tool calls with " +
      "their outcome, replies): around a recall entry's seq, or the whole session; `has`: only " +
      "the steps holding a name or phrase, in order. For 'first', 'later', 'what happened next'.",
    parameters: Type.Object({
      session_id: Type.String({ description: "session handle from a recall entry" }),
      turn: Type.Optional(Type.String({ description: "the entry's seq (omit: whole session)" })),
      has: Type.Optional(
        Type.String({ description: "only the steps holding this text (case-insensitive)" }),
      ),
      memory: Type.Optional(Type.String({ description: "the memory the hit came from" })),
    }),
    async execute(_toolCallId, params, signal) {
      const args = [...memoryArgs(config, params.memory)];
      if (params.has) args.push("--has", params.has);
      args.push("--", params.session_id);
      if (params.turn) args.push(params.turn);
      return runFunes("timeline", args, signal);
    },
  });

  pi.on("agent_end", async (_event, ctx) => {
    const sessionFile = ctx.sessionManager.getSessionFile();
    if (!sessionFile) return; // --no-session: nothing on disk to index
    const payload = JSON.stringify({
      hook_event_name: "agent_end",
      session_file: sessionFile,
      transcript_path: sessionFile,
      session_id: ctx.sessionManager.getSessionId(),
      cwd: ctx.cwd,
    });
    await new Promise<void>((resolve) => {
      let child;
      try {
        child = spawn(program, [...baseArgs, "hook", "pi"], {
          detached: true,
          stdio: ["pipe", "ignore", "ignore"],
        });
      } catch {
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        child.unref();
        resolve();
      }, HOOK_WAIT_MS);
      const finish = () => {
        clearTimeout(timer);
        resolve();
      };
      child.on("error", finish);
      child.on("exit", finish);
      child.stdin?.on("error", () => {});
      child.stdin?.end(payload);
    });
  });
}
