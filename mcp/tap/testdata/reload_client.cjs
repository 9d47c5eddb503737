// A long-lived real client behind tap --watch: the official TypeScript
// SDK's Client over stdio. It lists the tools, starts a call that the
// server never answers, saves a new tool list over the watched file (the
// server's code changing), and reports, one line each, what it saw: the
// in-flight call's outcome, the list_changed, the tools listed again, how
// many initialize answers it got, and whether its connection closed.
//
// usage: NODE_PATH=.../node_modules node reload_client.cjs WATCHED NEWTOOLS CMD ARGS...
const fs = require("fs");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ToolListChangedNotificationSchema } = require("@modelcontextprotocol/sdk/types.js");

const within = (ms, p, what) =>
  Promise.race([p, new Promise((_, no) => setTimeout(() => no(new Error("no " + what + " within " + ms + " ms")), ms).unref())]);

async function main() {
  const [watched, newTools, command, ...args] = process.argv.slice(2);
  const transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
  let initializeAnswers = 0;
  let closed = false;
  const client = new Client({ name: "reload-test-client", version: "1.0.0" }, { capabilities: {} });
  client.onclose = () => { closed = true; };
  let changed;
  const listChanged = new Promise((yes) => { changed = yes; });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed());
  await client.connect(transport);
  initializeAnswers = 1;
  const onmessage = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    if (msg.result && msg.result.serverInfo && msg.result.protocolVersion) initializeAnswers++;
    return onmessage(msg, extra);
  };
  const names = (r) => r.tools.map((t) => t.name).join(",");
  console.log("tools " + names(await client.listTools()));
  const inflight = client.callTool({ name: "hang", arguments: {} }, undefined, { timeout: 30000 })
    .then(() => "answered", (e) => "error " + e.code);
  await new Promise((r) => setTimeout(r, 300)); // the call reaches the server
  fs.copyFileSync(newTools, watched + ".new");
  fs.renameSync(watched + ".new", watched); // saved as an editor saves
  console.log("in-flight call: " + (await within(20000, inflight, "answer to the call in flight")));
  await within(20000, listChanged, "notifications/tools/list_changed");
  console.log("list_changed");
  console.log("tools " + names(await client.listTools()));
  const r = await client.callTool({ name: "echo", arguments: { message: "hi" } });
  console.log("echo " + r.content[0].text);
  console.log("initialize answers " + initializeAnswers);
  console.log("closed " + closed);
  await client.close();
}

main().catch((e) => { console.error(e); process.exit(1); });
