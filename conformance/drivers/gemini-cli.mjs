// Conformance driver for Gemini CLI (@google/gemini-cli-core, pinned in conformance/runtimes.py).
//
// Runs the runtime's own code: SkillManager.discoverSkills (dist/src/skills/skillManager.js, which
// calls loadSkillsFromDir / loadSkillFromFile in skillLoader.js) for a trusted workspace, then
// renderAgentSkills (dist/src/prompts/snippets.js, the modern-model prompt) on getSkills().
// As a user has it: built-in skills on (the profile lists them, [[tier1.builtin]]); they are
// reported as `builtin`, not as fixture skills, and stay in the listing.
//
// A job with `"settings": true` also applies `skills.disabled` as the CLI does: the CLI package
// (not installed in the lab) reads it from the user's ~/.gemini/settings.json and the workspace's
// .gemini/settings.json, merged as a union (packages/cli/src/config/settingsSchema.ts skills.disabled,
// MergeStrategy.UNION; config.ts disabledSkills: settings.skills?.disabled); the driver reads those
// two files the same way, and the core's own Config.initialize step runs on them:
// `skillManager.setDisabledSkills(disabledSkills)` (dist/src/config/config.js), after which
// `getSkills()` leaves the disabled ones out. A skill so disabled is reported in `warnings`.
//
// Protocol: one JSON job on stdin -> one JSON result on stdout; a JSON array of jobs -> an array
// of results. Nothing from a fixture is executed: the runtime only reads files.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const PKG = process.env.SKILLPRISM_LAB_PKG;
if (!PKG) {
  process.stderr.write("gemini-cli driver: SKILLPRISM_LAB_PKG is not set\n");
  process.exit(2);
}

// The runtime logs through console.*; stdout carries only the result.
const logged = [];
for (const level of ["log", "info", "debug", "warn", "error", "trace"]) {
  console[level] = (...args) => {
    logged.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
  };
}

const load = (rel) => import(pathToFileURL(path.join(PKG, rel)).href);
const release = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8")).version;

function applyJob(job) {
  for (const key of Object.keys(process.env)) {
    if (key.startsWith("XDG_") || key.startsWith("GEMINI")) delete process.env[key];
  }
  process.env.HOME = job.home;
  for (const [k, v] of Object.entries(job.env ?? {})) process.env[k] = String(v);
  process.chdir(job.cwd);
}

// skills.disabled of the user and workspace settings files (JSON with comments), a union.
function disabledSkills(job) {
  const files = [
    path.join(job.home, ".gemini", "settings.json"),
    path.join(job.project, ".gemini", "settings.json"),
  ];
  const names = [];
  for (const file of files) {
    let text;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const data = JSON.parse(text.replace(/^\s*\/\/.*$/gm, ""));
    const list = data?.skills?.disabled;
    if (Array.isArray(list)) names.push(...list.filter((n) => typeof n === "string"));
  }
  return names;
}

async function runJob(job, mods) {
  const { SkillManager, Storage, snippets, coreEvents } = mods;
  applyJob(job);
  logged.length = 0;
  const feedback = [];
  const onFeedback = (p) => feedback.push(p.message);
  coreEvents.on("user-feedback", onFeedback);
  try {
    const manager = new SkillManager();
    await manager.discoverSkills(new Storage(job.project), [], true);
    if (job.settings) manager.setDisabledSkills(disabledSkills(job));
    const skills = manager.getSkills();
    const tier1 = snippets.renderAgentSkills(
      skills.map((s) => ({ name: s.name, description: s.description, location: s.location })),
    );
    const warnings = [...feedback];
    for (const s of manager.getAllSkills()) {
      if (s.disabled) warnings.push(`${s.location}: disabled by skills.disabled`);
    }
    for (const line of logged) warnings.push(`log: ${line.split("\n")[0]}`);
    const entry = (s) => ({ path: s.location, name: s.name, description: s.description });
    return {
      runtime: "gemini-cli",
      release,
      skills: skills.filter((s) => !s.isBuiltin).map(entry),
      builtin: manager.getAllSkills().filter((s) => s.isBuiltin).map(entry),
      rejected: [], // loadSkillFromFile returns null without saying why
      warnings,
      tier1,
    };
  } finally {
    coreEvents.off("user-feedback", onFeedback);
  }
}

// Exit only after stdout is flushed: a pipe write is asynchronous in node and bun.
const writeOut = (text) => new Promise((resolve) => process.stdout.write(text, () => resolve()));

async function main() {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const jobs = Array.isArray(input) ? input : [input];
  if (jobs.length) applyJob(jobs[0]);
  const mods = {
    SkillManager: (await load("dist/src/skills/skillManager.js")).SkillManager,
    Storage: (await load("dist/src/config/storage.js")).Storage,
    snippets: await load("dist/src/prompts/snippets.js"),
    coreEvents: (await load("dist/src/utils/events.js")).coreEvents,
  };
  const results = [];
  for (const job of jobs) results.push(await runJob(job, mods));
  await writeOut(JSON.stringify(Array.isArray(input) ? results : results[0]) + "\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`gemini-cli driver: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
