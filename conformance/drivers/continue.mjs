// Conformance driver for Continue CLI (@continuedev/cli, pinned in conformance/runtimes.py).
//
// Continue ships one minified ESM bundle, dist/index.js, whose only exports are the CLI's entry
// points (runCli, ...); cn.js imports it and calls runCli(). The driver imports that same file
// (importing runs the bundle's module set-up, not the CLI: argv is never parsed) through a
// module load hook that appends one more export statement to its text, naming the bundle's own
// internal functions, found by content because the minified names change per release:
//   * loadMarkdownSkills (src/util/loadMarkdownSkills.ts; `see` in 1.5.47): the async function
//     holding "Failed to parse markdown skill file: " (roots <cwd>/.continue/skills,
//     <cwd>/.claude/skills, env.continueHome/skills; getSkillFilesFromDir; parseMarkdownRule of
//     @continuedev/config-yaml; the zod schema {name, description});
//   * skillsTool (src/tools/skills.ts; `Qei`): the factory whose description holds "The skill
//     name should match one of the available skills listed below:", with the lazy-module
//     initialiser that defines it (esbuild's `var x = L(() => {...})`). Its description is the
//     tier-1 text: getAllAvailableTools always adds the Skills tool, with skills or without.
// Nothing else in the bundle is called. The bundle's text is not changed otherwise.
//
// env.continueHome ($CONTINUE_GLOBAL_DIR or ~/.continue) is computed once, when the bundle's env
// module initialises (and dotenv reads <cwd>/.env then): one process per job (batch = False).
//
// Skill paths are reported relative to the working folder when under it (getRelativePath): the
// driver resolves them against the job's cwd. A rejected file's message carries no path
// ("Failed to parse markdown skill file: <zod or YAML message>"), so `rejected` stays empty and the
// messages go to `warnings`.
//
// Protocol: one JSON job on stdin -> one JSON result on stdout. Nothing from a fixture is
// executed: the runtime only reads files.
import fs from "node:fs";
import path from "node:path";
import { register } from "node:module";
import { pathToFileURL } from "node:url";

const PKG = process.env.SKILLPRISM_LAB_PKG;
if (!PKG) {
  process.stderr.write("continue driver: SKILLPRISM_LAB_PKG is not set\n");
  process.exit(2);
}

const logged = [];
const hook = (...args) => {
  logged.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(" "));
};
for (const level of ["log", "info", "debug", "warn", "error", "trace"]) console[level] = hook;

const release = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8")).version;
const BUNDLE = path.join(PKG, "dist", "index.js");

function ident(text, re, what) {
  const m = text.match(re);
  if (!m) throw new Error(`dist/index.js: ${what} not found`);
  return m;
}

// Find the internal names in the bundle's text.
function internals(text) {
  const failAt = text.indexOf("Failed to parse markdown skill file: ");
  if (failAt < 0) throw new Error("dist/index.js: no 'Failed to parse markdown skill file: '");
  const head = text.slice(Math.max(0, failAt - 4000), failAt);
  const fns = [...head.matchAll(/async function ([\w$]+)\(\)\{let [\w$]+=\[\],[\w$]+=\[\],[\w$]+=process\.cwd\(\);/g)];
  if (!fns.length) throw new Error("dist/index.js: loadMarkdownSkills not found");
  const load = fns[fns.length - 1][1];
  const toolAt = text.indexOf("The skill name should match one of the available skills listed below:");
  if (toolAt < 0) throw new Error("dist/index.js: no Skills tool description");
  const before = text.slice(Math.max(0, toolAt - 6000), toolAt);
  const tools = [...before.matchAll(/([\w$]+)=async\(\)=>\{let\{skills:[\w$]+\}=await ([\w$]+)\(\);return\{/g)];
  if (!tools.length || tools[tools.length - 1][2] !== load) {
    throw new Error("dist/index.js: skillsTool (calling loadMarkdownSkills) not found");
  }
  const tool = tools[tools.length - 1][1];
  const inits = [...before.matchAll(/,([\w$]+)=[\w$]+\(\(\)=>\{"use strict";/g)];
  if (!inits.length) throw new Error("dist/index.js: the Skills tool module initialiser not found");
  const init = inits[inits.length - 1][1];
  ident(text, /export\{[^}]*runCli[^}]*\};/, "the export statement");
  return { load, tool, init };
}

const text = fs.readFileSync(BUNDLE, "utf8");
const names = internals(text);
const extra = `export{${names.load} as __labLoadMarkdownSkills,${names.tool} as __labSkillsTool,${names.init} as __labInitSkillsTool};`;

// The load hook (a data: module) appends `extra` to dist/index.js when Node loads it.
const hooks = `
const target = ${JSON.stringify(pathToFileURL(BUNDLE).href)};
const extra = ${JSON.stringify(extra)};
export async function load(url, context, next) {
  const res = await next(url, context);
  if (url !== target) return res;
  return { ...res, format: "module", source: String(res.source) + "\\n" + extra + "\\n" };
}
`;

function applyJob(job) {
  for (const key of Object.keys(process.env)) {
    if (key.startsWith("XDG_") || key.startsWith("CONTINUE_")) delete process.env[key];
  }
  process.env.HOME = job.home;
  for (const [k, v] of Object.entries(job.env ?? {})) process.env[k] = String(v);
  process.chdir(job.cwd);
}

const writeOut = (text) => new Promise((resolve) => process.stdout.write(text, () => resolve()));

async function main() {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  if (Array.isArray(input)) throw new Error("one job per process (env.continueHome is fixed at import)");
  const job = input;
  applyJob(job);
  register("data:text/javascript," + encodeURIComponent(hooks));
  const mod = await import(pathToFileURL(BUNDLE).href);
  mod.__labInitSkillsTool();
  logged.length = 0;
  const { skills, errors } = await mod.__labLoadMarkdownSkills();
  const warnings = [];
  for (const e of errors) warnings.push(e.message);
  let tier1 = null;
  try {
    tier1 = (await mod.__labSkillsTool()).description;
  } catch (err) {
    warnings.push(`lab: skillsTool threw: ${err?.message ?? err}`);
  }
  for (const line of logged) warnings.push(`log: ${line.split("\n")[0]}`);
  const result = {
    runtime: "continue",
    release,
    skills: skills.map((s) => ({
      path: path.resolve(job.cwd, s.path),
      name: s.name,
      description: s.description,
    })),
    rejected: [],
    warnings,
    tier1,
  };
  await writeOut(JSON.stringify(result) + "\n");
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`continue driver: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
