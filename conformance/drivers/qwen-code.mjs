// Conformance driver for Qwen Code (@qwen-code/qwen-code, pinned in conformance/runtimes.py).
//
// Runs the runtime's own code: SkillManager (packages/core/src/skills/skill-manager.ts, bundled
// into a hashed chunk found by its source comment) with a config stub, `refreshCache()` and
// `listSkills()` (roots, parsing, first-wins across .qwen/.agents and levels, sorted by name),
// then `buildAvailableSkillsReminder(config)` (packages/core/src/core/environmentContext.ts) for
// the exact tier-1 text. Parse failures come from `getParseErrors()` (the runtime's own messages).
//
// The stub, as a user has it: project root = the job's project, no bare/safe mode, no
// extensions, no custom skill dirs, no skill level disabled (the bundled skills of the package's
// bundled/ folder are on; reported as `builtin`). Every skill is enabled (isSkillEnabled), no
// model-invocable MCP commands. A job with `"settings": true` reads the settings files instead,
// with the CLI's own `loadSettings(project)` (user $QWEN_HOME or ~/.qwen/settings.json, system,
// workspace) and `resolveSkillSettings(...).disabledNames` as `buildDisabledSkillNamesProvider`
// does, and asks the CLI's own `Config.prototype.isSkillEnabled` (skills.disabled hides a skill
// from <available_skills>); a skill so hidden is reported in `warnings`.
//
// Protocol: one JSON job on stdin -> one JSON result on stdout; an array of jobs -> an array.
// Nothing from a fixture is executed: the runtime only reads files.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const PKG = process.env.SKILLPRISM_LAB_PKG;
if (!PKG) {
  process.stderr.write("qwen-code driver: SKILLPRISM_LAB_PKG is not set\n");
  process.exit(2);
}

const logged = [];
for (const level of ["log", "info", "debug", "warn", "error", "trace"]) {
  console[level] = (...args) => {
    logged.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
  };
}

const release = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8")).version;

// The chunk files are hashed per release: find them by what they define.
function chunkDefining(marker) {
  const dir = path.join(PKG, "chunks");
  for (const f of fs.readdirSync(dir).sort()) {
    if (!f.endsWith(".js")) continue;
    const text = fs.readFileSync(path.join(dir, f), "utf8");
    if (text.includes(marker)) return path.join(dir, f);
  }
  throw new Error(`no chunk defines ${marker}`);
}

function applyJob(job) {
  for (const key of Object.keys(process.env)) {
    if (key.startsWith("XDG_") || key.startsWith("QWEN_")) delete process.env[key];
  }
  process.env.HOME = job.home;
  for (const [k, v] of Object.entries(job.env ?? {})) process.env[k] = String(v);
  process.chdir(job.cwd);
}

function makeConfig(job, holder) {
  return {
    getProjectRoot: () => job.project,
    getBareMode: () => false,
    isSafeMode: () => false,
    getDisabledSkillLevels: () => new Set(),
    getActiveExtensions: () => [],
    getCustomSkillDirs: () => [],
    isTrustedFolder: () => true,
    getSkillManager: () => holder.manager,
    isSkillEnabled: () => true,
    getModelInvocableCommandsProvider: () => null,
  };
}

// The CLI's own check of skills.disabled (Config.isSkillEnabled) on the CLI's own settings.
function withSettings(config, job, mods) {
  const loaded = mods.loadSettings(job.project);
  const { Config } = mods;
  Object.assign(config, {
    disabledSkillNamesProvider: () => mods.resolveSkillSettings(loaded).disabledNames,
    enabledSkillNamesProvider: null,
    getExtensions: () => [],
    getDisabledSkillNames: Config.prototype.getDisabledSkillNames,
    isSkillEnabled: Config.prototype.isSkillEnabled,
  });
  return config;
}

async function runJob(job, mods) {
  applyJob(job);
  logged.length = 0;
  const holder = {};
  const config = makeConfig(job, holder);
  if (job.settings) withSettings(config, job, await settingsModules(mods));
  holder.manager = new mods.SkillManager(config);
  await holder.manager.refreshCache();
  const skills = await holder.manager.listSkills();
  const rejected = [];
  for (const [file, err] of holder.manager.getParseErrors()) {
    rejected.push({ path: file, reason: err?.message ?? String(err) });
  }
  let tier1 = null;
  const warnings = [];
  try {
    const res = await mods.buildAvailableSkillsReminder(config);
    tier1 = res ? res.reminder : "";
  } catch (err) {
    warnings.push(`lab: buildAvailableSkillsReminder threw: ${err?.message ?? err}`);
  }
  for (const s of skills) {
    if (!config.isSkillEnabled(s)) warnings.push(`${s.filePath}: hidden by skills.disabled`);
  }
  for (const line of logged) warnings.push(`log: ${line.split("\n")[0]}`);
  return {
    runtime: "qwen-code",
    release,
    skills: skills
      .filter((s) => s.level !== "bundled")
      .map((s) => ({ path: s.filePath, name: s.name, description: s.description })),
    builtin: skills
      .filter((s) => s.level === "bundled")
      .map((s) => ({ path: s.filePath, name: s.name, description: s.description })),
    rejected,
    warnings,
    tier1,
  };
}

async function settingsModules(mods) {
  if (!mods.loadSettings) {
    const imp = async (marker) => import(pathToFileURL(chunkDefining(marker)).href);
    mods.loadSettings = (await imp("function loadSettings(workspaceDir = process.cwd()")).loadSettings;
    mods.resolveSkillSettings = (await imp("function resolveSkillSettings(settings)"))
      .resolveSkillSettings;
    mods.Config = (await imp("var Config = class _Config")).Config;
  }
  return mods;
}

const writeOut = (text) => new Promise((resolve) => process.stdout.write(text, () => resolve()));

async function main() {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const jobs = Array.isArray(input) ? input : [input];
  if (jobs.length) applyJob(jobs[0]);
  const managerChunk = chunkDefining("// packages/core/src/skills/skill-manager.ts");
  const reminderChunk = chunkDefining("async function buildAvailableSkillsReminder(");
  const mods = {
    SkillManager: (await import(pathToFileURL(managerChunk).href)).SkillManager,
    buildAvailableSkillsReminder: (await import(pathToFileURL(reminderChunk).href))
      .buildAvailableSkillsReminder,
  };
  const results = [];
  for (const job of jobs) results.push(await runJob(job, mods));
  await writeOut(JSON.stringify(Array.isArray(input) ? results : results[0]) + "\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`qwen-code driver: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
