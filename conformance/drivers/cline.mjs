// Conformance driver for Cline's SDK (@cline/core, pinned in conformance/runtimes.py), the code
// that builds the model's skill list for the Cline CLI 3.x and the extension.
//
// Runs the runtime's own code: createUserInstructionConfigService({skills: {workspacePath}})
// (its skills definition = resolveSkillsConfigSearchPaths + discoverSkillFiles +
// parseSkillConfigFromMarkdown, records keyed by the lower-cased name, later roots replacing
// earlier ones), refreshType("skill"), listRecords("skill"); then the `skills` tool of
// createDefaultTools({enableSkills: true, executors: {skills: service.createSkillsExecutor()}})
// and its description, which is where Cline lists the skills (tier 1). Rules and workflows are
// not read (empty directory lists). Parse errors come from the service's error events.
//
// Protocol: one JSON job on stdin -> one JSON result on stdout; an array of jobs -> an array.
// Nothing from a fixture is executed: the runtime only reads files.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const PKG = process.env.SKILLPRISM_LAB_PKG;
if (!PKG) {
  process.stderr.write("cline driver: SKILLPRISM_LAB_PKG is not set\n");
  process.exit(2);
}

const logged = [];
for (const level of ["log", "info", "debug", "warn", "error", "trace"]) {
  console[level] = (...args) => {
    logged.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
  };
}

const release = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8")).version;

function applyJob(job) {
  for (const key of Object.keys(process.env)) {
    if (key.startsWith("XDG_") || key.startsWith("CLINE_")) delete process.env[key];
  }
  process.env.HOME = job.home;
  for (const [k, v] of Object.entries(job.env ?? {})) process.env[k] = String(v);
  process.chdir(job.cwd);
}

async function runJob(job, core, storage) {
  applyJob(job);
  logged.length = 0;
  // The SDK resolves ~ and ~/.cline once and caches them: point both at the job's home
  // (resolveClineDir: setClineDir() > $CLINE_DIR > ~/.cline).
  storage.setHomeDir(job.home);
  storage.setClineDir(process.env.CLINE_DIR || path.join(job.home, ".cline"));
  const service = core.createUserInstructionConfigService({
    skills: { workspacePath: job.project },
    rules: { directories: [] },
    workflows: { directories: [] },
    emitParseErrors: true,
  });
  const rejected = [];
  const warnings = [];
  // The service wraps a watcher; error events carry the runtime's parse errors.
  const watcher = service.watcher ?? service._watcher;
  if (watcher?.subscribe) {
    watcher.subscribe((ev) => {
      if (ev.kind === "error" && !rejected.some((r) => r.path === (ev.filePath ?? ""))) {
        rejected.push({ path: ev.filePath ?? "", reason: String(ev.error?.message ?? ev.error) });
      }
    });
  }
  await service.refreshType("skill");
  const records = service.listRecords("skill");
  const skills = records
    .filter((r) => r.item.disabled !== true)
    .map((r) => ({ path: r.filePath, name: r.item.name, description: r.item.description }));
  let tier1 = null;
  try {
    const executor = service.createSkillsExecutor();
    const tools = core.createDefaultTools({
      executors: { skills: executor },
      enableReadFiles: false,
      enableSearch: false,
      enableBash: false,
      enableWebFetch: false,
      enableApplyPatch: false,
      enableEditor: false,
      enableSkills: true,
      enableAskQuestion: false,
      enableSubmitAndExit: false,
      cwd: job.cwd,
    });
    const tool = tools.find((t) => t.name === "skills");
    tier1 = tool ? tool.description : null;
    if (!tool) warnings.push("lab: createDefaultTools made no skills tool");
  } catch (err) {
    warnings.push(`lab: skills tool failed: ${err?.message ?? err}`);
  }
  service.stop?.();
  for (const line of logged) warnings.push(`log: ${line.split("\n")[0]}`);
  return { runtime: "cline", release, skills, rejected, warnings, tier1 };
}

const writeOut = (text) => new Promise((resolve) => process.stdout.write(text, () => resolve()));

async function main() {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const jobs = Array.isArray(input) ? input : [input];
  if (jobs.length) applyJob(jobs[0]);
  const core = await import(pathToFileURL(path.join(PKG, "dist", "index.js")).href);
  const shared = path.join(PKG, "..", "shared", "dist", "storage", "index.js");
  const storage = await import(pathToFileURL(shared).href);
  const results = [];
  for (const job of jobs) results.push(await runJob(job, core, storage));
  await writeOut(JSON.stringify(Array.isArray(input) ? results : results[0]) + "\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`cline driver: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
