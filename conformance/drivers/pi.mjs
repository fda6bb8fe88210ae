// Conformance driver for pi (@mariozechner/pi-coding-agent, pinned in conformance/runtimes.py).
//
// Runs the runtime's own code: DefaultResourceLoader.reload() (dist/core/resource-loader.js; its
// DefaultPackageManager.resolve() in dist/core/package-manager.js finds the skill files, then
// loadSkills() in dist/core/skills.js parses them and resolves clashes), then
// formatSkillsForPrompt() (dist/core/skills.js) on the loaded skills, as buildSystemPrompt does
// when the read tool is on. Extensions, prompt templates, themes and context files are switched
// off in the loader (they are not skills, and extensions would execute code).
//
// Protocol: one JSON job on stdin -> one JSON result on stdout; a JSON array of jobs -> an array
// of results. Nothing from a fixture is executed: the runtime only reads files.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const PKG = process.env.SKILLPRISM_LAB_PKG;
if (!PKG) {
  process.stderr.write("pi driver: SKILLPRISM_LAB_PKG is not set\n");
  process.exit(2);
}

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
    if (key.startsWith("XDG_") || key.startsWith("PI_")) delete process.env[key];
  }
  process.env.HOME = job.home;
  for (const [k, v] of Object.entries(job.env ?? {})) process.env[k] = String(v);
  process.chdir(job.cwd);
}

async function runJob(job, mods) {
  const { DefaultResourceLoader, formatSkillsForPrompt, getAgentDir } = mods;
  applyJob(job);
  logged.length = 0;
  const loader = new DefaultResourceLoader({
    cwd: job.cwd,
    agentDir: getAgentDir(),
    noExtensions: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
  });
  await loader.reload();
  const { skills, diagnostics } = loader.getSkills();
  const loadedPaths = new Set(skills.map((s) => s.filePath));
  const rejected = [];
  const warnings = [];
  for (const d of diagnostics) {
    if (d.type === "collision" && d.collision) {
      rejected.push({
        path: d.collision.loserPath,
        reason: `${d.message}: ${d.collision.winnerPath} wins`,
      });
      continue;
    }
    warnings.push(`${d.path}: ${d.message}`);
    if (d.path && !loadedPaths.has(d.path) && !rejected.some((r) => r.path === d.path)) {
      rejected.push({ path: d.path, reason: d.message });
    }
  }
  let tier1 = null;
  try {
    tier1 = skills.length > 0 ? formatSkillsForPrompt(skills) : "";
  } catch (err) {
    warnings.push(`lab: formatSkillsForPrompt threw: ${err?.message ?? err}`);
  }
  for (const line of logged) warnings.push(`log: ${line.split("\n")[0]}`);
  return {
    runtime: "pi",
    release,
    skills: skills.map((s) => ({ path: s.filePath, name: s.name, description: s.description })),
    rejected,
    warnings,
    tier1,
    // What the lab changes from pi's defaults: extensions (TypeScript pi runs) stay off. The
    // others (prompt templates, themes, context files) do not touch skills.
    settings: [
      {
        setting: "noExtensions",
        value: "true",
        reason: "extensions are code that loading them runs; the fixtures hold none",
      },
    ],
  };
}

// Exit only after stdout is flushed: a pipe write is asynchronous in node and bun.
const writeOut = (text) => new Promise((resolve) => process.stdout.write(text, () => resolve()));

async function main() {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const jobs = Array.isArray(input) ? input : [input];
  if (jobs.length) applyJob(jobs[0]);
  const mods = {
    DefaultResourceLoader: (await load("dist/core/resource-loader.js")).DefaultResourceLoader,
    formatSkillsForPrompt: (await load("dist/core/skills.js")).formatSkillsForPrompt,
    getAgentDir: (await load("dist/config.js")).getAgentDir,
  };
  const results = [];
  for (const job of jobs) results.push(await runJob(job, mods));
  await writeOut(JSON.stringify(Array.isArray(input) ? results : results[0]) + "\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`pi driver: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
