// Conformance driver for GitHub Copilot CLI (@github/copilot-linux-x64, pinned in
// conformance/runtimes.py).
//
// The package is a Node single-executable (`copilot`); its SEA blob holds the asset copilot.tgz
// with package/cli-main.js and the native addon package/prebuilds/linux-x64/runtime.node, where
// skill discovery, parsing and ranking live (Rust). On first use the driver cuts copilot.tgz out
// of the executable (found by its asset key) into <install dir>/extracted (nothing is executed
// to do that), then loads runtime.node and calls, as cli-main.js does:
//   skillsLoad(projectRoot, [], [], configDir, home, envSkillDirs, [], cwd, [], true,
//              builtinDir, cwd, includePersonalAgents, false, false)
// with projectRoot = the job's project, configDir = $COPILOT_HOME or ~/.copilot, and the built-in
// folder the CLI itself passes (skillsResolveBuiltinDir(<cli-main.js folder>, true), as jH() in
// cli-main.js): the built-in skills are on, as by default, and reported as `builtin`. Its result gives the
// skills in the runtime's order after its own clash resolution and the runtime's own error
// texts ("<path>: <message>") as `rejected`. Tier 1 is not exposed by the addon: `tier1` is null.
//
// A job with `settings: true` also applies the user's disabledSkills as the CLI does (e0e and
// `copilot skill list`, Dqn, in cli-main.js): the addon's userSettingsLoad({configDir,
// homeDirectory, environment}) reads them ($COPILOT_HOME or ~/.copilot settings.json), and a skill
// for which the addon's skillsIsDisabled(skill, disabled) holds is left out of `skills` and
// reported in `rejected` ("disabled by disabledSkills"). The repository's own list (Gj: only in
// a trusted folder) is not read.
//
// Protocol: one JSON job on stdin -> one JSON result; an array of jobs -> an array.
// Nothing from a fixture is executed: the runtime only reads files.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";

const PKG = process.env.SKILLPRISM_LAB_PKG;
if (!PKG) {
  process.stderr.write("copilot-cli driver: SKILLPRISM_LAB_PKG is not set\n");
  process.exit(2);
}
const release = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8")).version;
const EXTRACTED = path.join(PKG, "..", "..", "..", "extracted", release);

function extract() {
  const addon = path.join(EXTRACTED, "package", "prebuilds", "linux-x64", "runtime.node");
  if (fs.existsSync(addon)) return addon;
  const exe = fs.readFileSync(path.join(PKG, "copilot"));
  // SEA asset record: u64 key length (11), key "copilot.tgz", u64 value length, value (gzip).
  const key = Buffer.concat([Buffer.from([11, 0, 0, 0, 0, 0, 0, 0]), Buffer.from("copilot.tgz")]);
  const at = exe.indexOf(key);
  if (at < 0) throw new Error("no copilot.tgz asset in the executable");
  const start = at + key.length + 8;
  const size = Number(exe.readBigUInt64LE(at + key.length));
  const tgz = exe.subarray(start, start + size);
  if (tgz[0] !== 0x1f || tgz[1] !== 0x8b) throw new Error("copilot.tgz asset is not gzip");
  fs.mkdirSync(EXTRACTED, { recursive: true });
  const tar = path.join(EXTRACTED, "copilot.tar");
  fs.writeFileSync(tar, zlib.gunzipSync(tgz));
  execFileSync("tar", ["-xf", tar, "-C", EXTRACTED, "--no-same-owner", "--no-same-permissions"]);
  fs.rmSync(tar);
  return addon;
}

function applyJob(job) {
  for (const key of Object.keys(process.env)) {
    if (key.startsWith("XDG_") || key.startsWith("COPILOT_") || key === "SKILL_CHAR_BUDGET") {
      delete process.env[key];
    }
  }
  process.env.HOME = job.home;
  for (const [k, v] of Object.entries(job.env ?? {})) process.env[k] = String(v);
  process.chdir(job.cwd);
}

async function runJob(job, m, builtin) {
  applyJob(job);
  const configDir = process.env.COPILOT_HOME || path.join(job.home, ".copilot");
  const includePersonalAgents = !process.env.COPILOT_HOME;
  const r = await m.skillsLoad(
    job.project,
    [],
    [],
    configDir,
    job.home,
    process.env.COPILOT_SKILLS_DIRS,
    [],
    job.cwd,
    [],
    true,
    builtin,
    job.cwd,
    includePersonalAgents,
    false,
    false,
  );
  const inBuiltin = (s) => s.filePath && s.filePath.startsWith(builtin + path.sep);
  const entry = (s) => ({ path: s.filePath, name: s.name, description: s.description });
  let disabled = [];
  if (job.settings) {
    const settings = await m.userSettingsLoad({
      configDir,
      homeDirectory: job.home,
      environment: process.env,
    });
    disabled = [...(settings.disabledSkills ?? [])];
  }
  const off = (s) => disabled.length > 0 && m.skillsIsDisabled(s, disabled);
  const skills = (r.skills ?? []).filter((s) => !inBuiltin(s) && !off(s)).map(entry);
  const builtins = (r.skills ?? []).filter(inBuiltin).map(entry);
  const turnedOff = (r.skills ?? [])
    .filter((s) => !inBuiltin(s) && off(s))
    .map((s) => ({ path: s.filePath, reason: "disabled by disabledSkills" }));
  const rejected = (r.errors ?? []).map((e) => {
    const text = String(e);
    const cut = text.indexOf(": ");
    return cut > 0
      ? { path: path.resolve(job.cwd, text.slice(0, cut)), reason: text.slice(cut + 2) }
      : { path: "", reason: text };
  });
  const warnings = (r.warnings ?? []).map((w) => String(w));
  return {
    runtime: "copilot-cli",
    release,
    skills,
    builtin: builtins,
    rejected: [...rejected, ...turnedOff],
    warnings,
    tier1: null,
  };
}

const writeOut = (text) => new Promise((resolve) => process.stdout.write(text, () => resolve()));

async function main() {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const jobs = Array.isArray(input) ? input : [input];
  const addon = extract();
  const m = createRequire(import.meta.url)(addon);
  const builtin = m.skillsResolveBuiltinDir(path.join(EXTRACTED, "package"), true);
  const results = [];
  for (const job of jobs) results.push(await runJob(job, m, builtin));
  await writeOut(JSON.stringify(Array.isArray(input) ? results : results[0]) + "\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`copilot-cli driver: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
