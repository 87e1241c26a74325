// A Pi stand-in for the process-lifetime test: a real Pi session (the kit's harness, built dist)
// with pi-jscpd (built dist) whose jscpd is argv[3]; it idles until it is killed.
// argv: [cwd, agentDir, jscpd]
import { createScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { createJscpdExtension } from "@pi-lifecycle/pi-jscpd";

const [cwd, agentDir, executable] = process.argv.slice(2);
await createScriptedSession({
	cwd,
	projectTrusted: false,
	extensions: [{ name: "pi-jscpd", factory: createJscpdExtension({ agentDir: () => agentDir, executable }) }],
});
process.stdout.write("ready\n");
setInterval(() => {}, 1_000);
