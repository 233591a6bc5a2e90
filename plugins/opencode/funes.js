// funes for opencode: the per-turn hook. The `recall` and `get` tools come from the funes MCP
// server (`mcp.funes` in opencode.json, tools `funes_recall` / `funes_get`), and FUNES.md
// (listed under `instructions`) tells the model when to recall.
//
// opencode has no shell-command hooks; a plugin's `event` handler sees every bus event, and
// `session.idle` ends each prompt. On it this plugin starts `funes hook opencode` detached, hands
// it a JSON payload naming opencode's database and the session, and returns at once: funes queues
// the turn and indexes it in a background worker, so opencode never waits.
//
// `funes add opencode` writes funes.json beside this file (the funes command line); `FUNES_BIN`
// overrides it for one run. No import of @opencode-ai/plugin: nothing here needs it.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";

function funesCommand() {
  const bin = process.env.FUNES_BIN?.trim();
  if (bin) return [bin];
  try {
    const file = join(dirname(fileURLToPath(import.meta.url)), "funes.json");
    if (existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, "utf8"));
      if (Array.isArray(saved.command) && saved.command.length > 0) return saved.command;
    }
  } catch {
    // A damaged funes.json falls back to `funes` on PATH; `funes add opencode` rewrites it.
  }
  return ["funes"];
}

// Where opencode keeps its database: $XDG_DATA_HOME/opencode/opencode.db ($OPENCODE_DB overrides).
function databasePath() {
  const data = join(process.env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "opencode");
  const named = process.env.OPENCODE_DB;
  return named ? (isAbsolute(named) ? named : join(data, named)) : join(data, "opencode.db");
}

function hook(payload) {
  const [program, ...args] = funesCommand();
  try {
    const child = spawn(program, [...args, "hook", "opencode"], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.on("error", () => {}); // funes missing: never break opencode
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
    child.unref();
  } catch {
    // as above
  }
}

export const FunesMemory = async ({ directory }) => ({
  event: async ({ event }) => {
    if (event.type !== "session.idle") return;
    hook({
      hook_event_name: "session.idle",
      session_id: event.properties?.sessionID,
      transcript_path: databasePath(),
      cwd: directory,
    });
  },
});
