import { it } from "vitest";
import { command, fauxScript, startPi, submit } from "./driver.js";
it("probe", async () => {
	const tui = await startPi({ script: fauxScript("idle-reset.mjs") });
	try {
		await command(tui, "/reset PROBE-HANDOFF next step is two");
		await new Promise((r) => setTimeout(r, 1000));
		console.log("AFTER RESET\n" + tui.capture());
		submit(tui, "go on please");
		await tui.waitForScreen(/REPLY-IN-FRESH-WINDOW/, 30_000);
		await new Promise((r) => setTimeout(r, 1500));
		console.log("AFTER REPLY\n" + tui.capture());
		submit(tui, "and again");
		await tui.waitForScreen(/SECOND-REPLY/, 30_000);
		await new Promise((r) => setTimeout(r, 1500));
		console.log("AFTER SECOND\n" + tui.capture());
	} finally { tui.close(); }
}, 240_000);
