process.env.PI_CODING_AGENT_DIR ??= (await import("node:fs")).mkdtempSync("/tmp/bench-agent-");
const mod = await import(`./metrics/${process.argv[2]}.ts`);
console.log(JSON.stringify(await mod[process.argv[3]](process.argv[4] === "smoke"), null, 1));
