// A real MCP client for the tap's byte-identity test: the official
// TypeScript SDK's Client over stdio. It runs the same requests against
// the command it is given (the server itself, or mcpscope tap in front of
// it) and prints, one per line, every message it sent and every answer it
// received, as the SDK parsed them. The Go test compares the hashes of a
// direct run and a tapped one. Notifications are left out: server-everything
// sends some on timers.
//
// usage: NODE_PATH=.../node_modules node tsclient.cjs CMD ARGS...
//        NODE_PATH=.../node_modules node tsclient.cjs http://HOST:PORT/mcp
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const [command, ...args] = process.argv.slice(2);
  const transport = /^https?:/.test(command)
    ? new StreamableHTTPClientTransport(new URL(command))
    : new StdioClientTransport({ command, args, stderr: "ignore" });
  const seen = [];
  const send = transport.send.bind(transport);
  transport.send = (msg, opts) => {
    if (msg.id !== undefined) seen.push("> " + JSON.stringify(msg));
    return send(msg, opts);
  };
  const client = new Client({ name: "tap-test-ts-client", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  const onmessage = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    if (msg.id !== undefined && msg.method === undefined) seen.push("< " + JSON.stringify(msg));
    onmessage(msg, extra);
  };
  await client.listTools();
  await client.callTool({ name: "echo", arguments: { message: "through the tap: h\u00e9 \u2603" } });
  await client.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } });
  await client.listPrompts();
  await client.listResources();
  await client.ping();
  if (transport.terminateSession) await transport.terminateSession();
  await client.close();
  process.stdout.write(seen.join("\n") + "\n");
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + "\n");
  process.exit(1);
});
