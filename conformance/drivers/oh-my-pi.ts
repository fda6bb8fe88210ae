// Conformance driver for oh-my-pi (@oh-my-pi/pi-coding-agent, run with bun; pinned in
// conformance/runtimes.py).
//
// Runs the runtime's own code: loadSkills({ cwd }) (src/extensibility/skills.ts: every provider
// registered for the skills capability in src/discovery/*.ts, scanSkillsFromDir in
// src/discovery/helpers.ts, parseFrontmatter in @oh-my-pi/pi-utils) with the settings' defaults,
// as buildSystemPrompt (src/system-prompt.ts) calls it. Tier 1 is the `{{#if skills.length}}`
// block under "# Skills & Rules" of the shipped template src/prompts/system/system-prompt.md,
// rendered by pi-utils' prompt.render with the skills the system prompt keeps (hide !== true).
//
// A job with `settings: true` reads the settings as the session does (sdk.ts: settings.getGroup
// ("skills") spread into loadSkills): Settings.loadReadOnly({ cwd }) (src/config/settings.ts: the
// global config.yml of the agent folder and the project's; read only: no agent.db, no
// migration, no marker file) and loadSkills({ ...skills group, cwd }), so skills.ignoredSkills
// and the other skills.* settings apply.
//
// One job per process: pi-utils resolves the home folder when it is imported. Nothing from a
// fixture is executed: the runtime only reads files.
import * as fs from "node:fs";
import * as path from "node:path";

const PKG = process.env.SKILLPRISM_LAB_PKG;
if (!PKG) {
	process.stderr.write("oh-my-pi driver: SKILLPRISM_LAB_PKG is not set\n");
	process.exit(2);
}

const logged: string[] = [];
for (const level of ["log", "info", "debug", "warn", "error", "trace"] as const) {
	(console as any)[level] = (...args: unknown[]) => {
		logged.push(args.map(a => (a instanceof Error ? a.message : String(a))).join(" "));
	};
}

// Exit only after stdout is flushed: a pipe write is asynchronous in node and bun.
const writeOut = (text: string) => new Promise<void>(resolve => process.stdout.write(text, () => resolve()));

async function main(): Promise<void> {
	const input = JSON.parse(fs.readFileSync(0, "utf8"));
	if (Array.isArray(input)) throw new Error("one job per process (pi-utils freezes HOME at import)");
	const job = input as {
		home: string;
		project: string;
		cwd: string;
		env?: Record<string, string>;
		settings?: boolean;
	};
	for (const key of Object.keys(process.env)) {
		if (key.startsWith("XDG_") || key.startsWith("PI_") || key.startsWith("OMP_")) delete process.env[key];
	}
	process.env.HOME = job.home;
	for (const [k, v] of Object.entries(job.env ?? {})) process.env[k] = String(v);
	process.chdir(job.cwd);

	const release = JSON.parse(fs.readFileSync(path.join(PKG!, "package.json"), "utf8")).version;
	const { loadSkills } = await import(path.join(PKG!, "src/extensibility/skills.ts"));
	const utils = await import(Bun.resolveSync("@oh-my-pi/pi-utils", PKG!));
	let group: Record<string, unknown> = {};
	if (job.settings) {
		const { Settings } = await import(path.join(PKG!, "src/config/settings.ts"));
		group = (await Settings.loadReadOnly({ cwd: job.cwd })).getGroup("skills");
	}
	const result = await loadSkills({ ...group, cwd: job.cwd });
	const skills = result.skills as Array<{ name: string; description: string; filePath: string; hide?: boolean }>;

	const template = fs.readFileSync(path.join(PKG!, "src/prompts/system/system-prompt.md"), "utf8");
	const section = template.indexOf("# Skills & Rules");
	const open = "{{#if skills.length}}";
	const start = template.indexOf(open, section);
	const end = template.indexOf("{{/if}}", start);
	if (section < 0 || start < 0 || end < 0) throw new Error("skills block not found in system-prompt.md");
	const fragment = template.slice(start, end + "{{/if}}".length);
	const listed = skills.filter(s => s.hide !== true);
	const tier1 = utils.prompt.render(fragment, { skills: listed });

	const rejected: Array<{ path: string; reason: string }> = [];
	const warnings: string[] = [];
	for (const w of result.warnings as Array<{ skillPath: string; message: string }>) {
		const m = /^name collision: .* already loaded from (.*), skipping this one$/.exec(w.message);
		if (m && w.skillPath) rejected.push({ path: w.skillPath, reason: w.message });
		else warnings.push(w.skillPath ? `${w.skillPath}: ${w.message}` : w.message);
	}
	for (const line of logged) warnings.push(`log: ${line.split("\n")[0]}`);
	await writeOut(
		JSON.stringify({
			runtime: "oh-my-pi",
			release,
			skills: skills.map(s => ({ path: s.filePath, name: s.name, description: s.description })),
			rejected,
			warnings,
			tier1,
		}) + "\n",
	);
}

main().then(
	() => process.exit(0),
	err => {
		process.stderr.write(`oh-my-pi driver: ${err?.stack ?? err}\n`);
		process.exit(1);
	},
);
