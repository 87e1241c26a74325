/**
 * Switches the model can reach act on the current session only: `jscpd_run off` never writes a
 * settings file, while the user's `/jscpd on|off` saves globally and ends a session switch.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createDialogStub, reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type JscpdSession, jscpdSession, remove, tempDir, writeFiles } from "./helpers.js";

let h: JscpdSession | undefined;
const dirs: string[] = [];
afterEach(async () => {
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

async function session(ui?: ReturnType<typeof createDialogStub>) {
	const root = tempDir("pi-jscpd-switch-");
	const agentDir = tempDir("pi-jscpd-switch-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, { "src/a.ts": "export const a = 1;\n" });
	h = await jscpdSession({ project: root, agentDir, session: "file", ...(ui ? { ui: ui.ui } : {}) });
	return { s: h, settingsFile: join(agentDir, "pi-lifecycle", "pi-jscpd.json") };
}

function lastToolResult(s: JscpdSession): string {
	return JSON.stringify(s.requests.at(-1)?.messages.at(-1));
}

describe("switch scope", () => {
	it("model-reachable jscpd_run off acts on this session only and saves nothing", async () => {
		const { s, settingsFile } = await session();
		s.script(toolCall("jscpd_run", { command: "off" }), reply("turned it off"));
		await s.prompt("turn the duplicate checks off");
		expect(lastToolResult(s)).toContain("for this session only");
		expect(s.controller.status().settings.enabled).toBe(false);
		expect(s.controller.status().settingsSources.join("\n")).toContain("session: checkpoint off");
		expect(existsSync(settingsFile)).toBe(false);
		// A new runtime (here: reload) starts from the user's saved settings again.
		await s.reload();
		await s.controller.settled();
		expect(s.controller.status().settings.enabled).toBe(true);
	});

	it("the user's /jscpd off is saved globally and /jscpd on ends the model's session switch", async () => {
		const { s, settingsFile } = await session();
		await s.prompt("/jscpd off");
		expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toMatchObject({ enabled: false });
		expect(s.controller.status().settings.enabled).toBe(false);

		s.script(toolCall("jscpd_run", { command: "on" }), reply("on for now"));
		await s.prompt("check duplicates in this session");
		expect(s.controller.status().settings.enabled).toBe(true);
		// The saved setting is untouched by the model.
		expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toMatchObject({ enabled: false });

		await s.prompt("/jscpd off");
		expect(s.controller.status().settings.enabled).toBe(false);
		expect(s.controller.status().settingsSources.join("\n")).not.toContain("session:");
	});

	it("the footer follows every switch at once: /jscpd off|on and jscpd_run off|on, also after the baseline settled", async () => {
		const ui = createDialogStub();
		const { s } = await session(ui);
		await s.controller.settled();
		const footer = () => ui.statuses.get("pi-jscpd");
		expect(footer()).toBe("jscpd: ready");
		await s.prompt("/jscpd off");
		expect(footer()).toBe("jscpd: off");
		await s.prompt("/jscpd on");
		expect(footer()).toBe("jscpd: ready");
		s.script(toolCall("jscpd_run", { command: "off" }), reply("off for now"));
		await s.prompt("turn the duplicate checks off");
		expect(footer()).toBe("jscpd: off");
		s.script(toolCall("jscpd_run", { command: "on" }), reply("on again"));
		await s.prompt("turn them on again");
		expect(footer()).not.toBe("jscpd: off");
	});
});
