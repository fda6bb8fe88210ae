// Conformance driver for OpenClaw (npm openclaw, pinned in conformance/runtimes.py).
//
// Runs the runtime's own code from its hashed dist/ chunks (found by file-name prefix and the
// source region they hold; the minified export aliases are read from each chunk's export line):
//   * loadWorkspaceSkills(project, opts) (src/skills/loading/workspace-skill-loader.ts): the
//     source plan of workspace-skill-sources.ts (extra, bundled, managed = $OPENCLAW_STATE_DIR or
//     ~/.openclaw /skills, ~/.agents/skills with the default state folder, <project>/.agents/skills,
//     <project>/skills), discoverSkillCandidates (skill-root-discovery.ts), loadSingleSkillDirectory
//     (local-loader.ts) and mergeSkillRecords (a Map by name, later tiers replacing earlier ones,
//     sorted by name);
//   * buildSkillSnapshot(project, opts).prompt (workspace-skill-prompt.ts): eligibility filter,
//     prompt visibility (disable-model-invocation), compactPromptSkills (~/ paths),
//     prepareSkillsForPrompt with its default limits (150 skills, 18,000 chars), trimmed as
//     buildSkillsSection puts it into the system prompt under "## Skills".
// opts: config {plugins: {enabled: false}} (no plugin skills), bundledSkillsDir and
// pluginSkillsDir = empty folders of the driver's own (bundled skills are not modelled), no agent
// (no workshop, no Custodian). Rejections are the runtime's own "Skipping invalid skill: file=...
// error=..." log lines (paths given as ~/... are expanded with the job's home).
//
// A job with `settings: true` reads the user's config as the runtime does (loadConfig of
// src/config/io.runtime.ts, unpinned: $OPENCLAW_CONFIG_PATH or the state folder's openclaw.json,
// JSON5) and passes it on with plugins still off, so skills.entries.<key>.enabled = false
// (shouldIncludeSkill) applies. (loadConfig also tries to record the config's health in its
// SQLite state; node without node:sqlite refuses that, logged, nothing written.)
//
// The runtime's file logger also appends its lines to its own log file (/tmp/openclaw/openclaw-<date>.log).
//
// The state folder (CONFIG_DIR) is computed when utils is imported; the driver re-pins it per job
// with the runtime's own pinConfigDir(), so batches of jobs are supported.
//
// Protocol: one JSON job on stdin -> one JSON result on stdout; an array of jobs -> an array.
// Nothing from a fixture is executed: the runtime only reads files.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const PKG = process.env.SKILLPRISM_LAB_PKG;
if (!PKG) {
  process.stderr.write("openclaw driver: SKILLPRISM_LAB_PKG is not set\n");
  process.exit(2);
}

const logged = [];
const hook = (...args) => {
  logged.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
};
for (const level of ["log", "info", "debug", "warn", "error", "trace"]) console[level] = hook;
// The subsystem logger writes console lines straight to the streams.
const realStdoutWrite = process.stdout.write.bind(process.stdout);
const realStderrWrite = process.stderr.write.bind(process.stderr);
let capture = false;
process.stdout.write = (chunk, ...rest) => {
  if (capture) {
    hook(String(chunk));
    const cb = rest.find((r) => typeof r === "function");
    if (cb) cb();
    return true;
  }
  return realStdoutWrite(chunk, ...rest);
};
process.stderr.write = (chunk, ...rest) => {
  if (capture) {
    hook(String(chunk));
    const cb = rest.find((r) => typeof r === "function");
    if (cb) cb();
    return true;
  }
  return realStderrWrite(chunk, ...rest);
};

const DIST = path.join(PKG, "dist");
const release = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8")).version;

// A hashed chunk: `<prefix>-<hash>.mjs` holding `marker`.
function chunk(prefix, marker) {
  for (const f of fs.readdirSync(DIST).sort()) {
    if (!f.startsWith(prefix + "-") || !f.endsWith(".mjs")) continue;
    const text = fs.readFileSync(path.join(DIST, f), "utf8");
    if (text.includes(marker)) return { file: path.join(DIST, f), text };
  }
  throw new Error(`no dist/${prefix}-*.mjs holds ${marker}`);
}

// Import a chunk and return its exports under their source names (`export { name as x }`).
async function named(prefix, marker, names) {
  const { file, text } = chunk(prefix, marker);
  const line = text.match(/export \{([^}]*)\};?\s*$/);
  if (!line) throw new Error(`${file}: no export line`);
  const alias = {};
  for (const part of line[1].split(",")) {
    const m = part.trim().match(/^(\w+)(?: as (\w+))?$/);
    if (m) alias[m[1]] = m[2] ?? m[1];
  }
  const mod = await import(pathToFileURL(file).href);
  const out = {};
  for (const n of names) {
    if (!(n in alias) || typeof mod[alias[n]] === "undefined") {
      throw new Error(`${file} does not export ${n}`);
    }
    out[n] = mod[alias[n]];
  }
  return out;
}

function applyJob(job) {
  for (const key of Object.keys(process.env)) {
    if (key.startsWith("XDG_") || key.startsWith("OPENCLAW_")) delete process.env[key];
  }
  process.env.HOME = job.home;
  for (const [k, v] of Object.entries(job.env ?? {})) process.env[k] = String(v);
  process.chdir(job.cwd);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "openclaw-lab-"));
const emptyBundled = path.join(scratch, "bundled-skills");
fs.mkdirSync(emptyBundled);

const INVALID = /Skipping invalid skill: file=(.*?) error=(.*)$/s;
const ESCAPED = /Skipping escaped skill path outside its configured root: .*? requested=(\S+)/;

async function runJob(job, mods, n) {
  applyJob(job);
  mods.pinConfigDir(process.env);
  logged.length = 0;
  let config = {};
  if (job.settings) config = mods.loadConfig({ pin: false }) ?? {};
  const opts = {
    config: { ...config, plugins: { ...(config.plugins ?? {}), enabled: false } },
    bundledSkillsDir: emptyBundled,
    pluginSkillsDir: path.join(scratch, `plugin-skills-${n}`),
  };
  const warnings = [];
  capture = true;
  let entries;
  let tier1 = null;
  try {
    entries = mods.loadWorkspaceSkills(job.project, opts);
    try {
      const snap = await mods.buildSkillSnapshot(job.project, opts);
      tier1 = (snap.prompt ?? "").trim();
    } catch (err) {
      warnings.push(`lab: buildSkillSnapshot threw: ${err?.message ?? err}`);
    }
  } finally {
    capture = false;
  }
  const expand = (p) => (p.startsWith("~/") ? path.join(job.home, p.slice(2)) : p);
  const rejected = [];
  for (const line of logged) {
    const first = line.replace(/\x1b\[[0-9;]*m/g, "").trim();
    let m = first.match(INVALID);
    if (m) {
      const file = expand(m[1]);
      if (!rejected.some((r) => r.path === file)) rejected.push({ path: file, reason: m[2].trim() });
      continue;
    }
    m = first.match(ESCAPED);
    if (m) rejected.push({ path: expand(m[1]), reason: "escaped skill path outside its configured root" });
    warnings.push(`log: ${first.split("\n")[0]}`);
  }
  return {
    runtime: "openclaw",
    release,
    skills: entries.map((e) => ({
      path: e.skill.filePath,
      name: e.skill.name,
      description: e.skill.description,
    })),
    rejected,
    warnings,
    tier1,
    // What the lab changes from OpenClaw's defaults (each a divergence of its own, explained in
    // conformance/known-divergences.toml).
    settings: [
      {
        setting: "bundledSkillsDir",
        value: "an empty folder",
        reason: "52 bundled skills, each listed only when its requirements hold on the machine",
      },
      {
        setting: "plugins.enabled",
        value: "false",
        reason: "plugins are code; their skills are gated like the bundled ones",
      },
    ],
  };
}

const writeOut = (text) => new Promise((resolve) => realStdoutWrite(text, () => resolve()));

async function main() {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const jobs = Array.isArray(input) ? input : [input];
  if (jobs.length) applyJob(jobs[0]);
  const mods = {
    ...(await named("workspace-skill-loader", "//#region src/skills/loading/workspace-skill-loader.ts", [
      "loadWorkspaceSkills",
    ])),
    ...(await named("workspace-skill-prompt", "//#region src/skills/loading/workspace-skill-prompt.ts", [
      "buildSkillSnapshot",
    ])),
    ...(await named("utils", "function pinConfigDir(", ["pinConfigDir"])),
    ...(await named("io.runtime", "function loadConfig(", ["loadConfig"])),
  };
  const results = [];
  let n = 0;
  for (const job of jobs) results.push(await runJob(job, mods, n++));
  fs.rmSync(scratch, { recursive: true, force: true });
  await writeOut(JSON.stringify(Array.isArray(input) ? results : results[0]) + "\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    realStderrWrite(`openclaw driver: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
