// An MCP client built on the official TypeScript SDK, run against the
// built `aiq-rpc mcp` by cmd/aiq-rpc's TestMCPClient, which owns the
// databases and checks what this script cannot see. Each step prints
// "ok - ..."; a failed check throws and exits non-zero. The last line is
// the result, as JSON.
//
// Environment: AIQ_RPC (the binary), AIQ_TEST_HOME (a home whose sources
// are db, a SQLite file with an orders table, and pg and maria, real
// servers) and AIQ_TEST_DEMO_HOME (a home with no sources: the demo
// database).

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this through TestMCPClient`);
  return value;
};
const ok = (what) => console.log(`ok - ${what}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// connect starts the server with args and connects a client; answer, when
// given, answers elicitations (and declares the capability).
async function connect(args, answer) {
  const capabilities = answer ? { elicitation: {} } : {};
  const client = new Client({ name: "aiq-mcp-test", version: "1.0.0" }, { capabilities });
  const asked = [];
  if (answer) {
    client.setRequestHandler(ElicitRequestSchema, (req) => {
      asked.push(req.params);
      return answer(req.params);
    });
  }
  // The whole environment, as hosts pass it: $BROWSER is the test's.
  const transport = new StdioClientTransport({ command: env("AIQ_RPC"), args: ["mcp", ...args], stderr: "inherit", env: { ...process.env } });
  await client.connect(transport);
  return { client, asked };
}

const textOf = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");

async function sql(client, statement, source) {
  const args = { sql: statement };
  if (source) args.source = source;
  return client.callTool({ name: "execute_sql", arguments: args }, undefined, { timeout: 300_000 });
}

async function count(client, source, query) {
  const res = await sql(client, query, source);
  assert.ok(!res.isError, textOf(res));
  return Number(res.structuredContent.rows[0][0]);
}

// The demo database: no sources configured, every tool.
{
  const { client } = await connect(["--home", env("AIQ_TEST_DEMO_HOME")]);
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(Object.keys(byName).sort(), [
    "describe_table",
    "execute_sql",
    "explain_sql",
    "list_sources",
    "list_tables",
    "profile_column",
    "query",
    "search_schema",
  ]);
  for (const t of tools) {
    assert.equal(t.annotations.openWorldHint, false, t.name);
    assert.ok(t.annotations.title, t.name);
    assert.equal(t.annotations.readOnlyHint, t.name !== "execute_sql", t.name);
    assert.equal(t.annotations.idempotentHint, t.name !== "execute_sql", t.name);
    assert.equal(t.annotations.destructiveHint, t.name === "execute_sql", t.name);
    assert.equal(t.inputSchema.type, "object", t.name);
    assert.equal(t.outputSchema.type, "object", t.name);
    assert.ok(t.description.length > 40, t.name);
  }
  assert.deepEqual(byName.execute_sql.inputSchema.required, ["sql"]);
  assert.deepEqual(byName.query.inputSchema.required, ["sql"]);
  assert.deepEqual(byName.search_schema.inputSchema.required, ["query"]);
  assert.deepEqual(byName.profile_column.inputSchema.required, ["table", "column"]);
  assert.deepEqual(byName.explain_sql.inputSchema.required, ["sql"]);
  assert.equal(byName.describe_table.inputSchema.properties.tables.maxItems, 20);
  ok("tools/list: eight tools, each with annotations, an input and an output schema");

  let res = await client.callTool({ name: "list_sources", arguments: {} });
  assert.deepEqual(res.structuredContent.sources, [{ name: "demo", type: "sqlite", label: "demo.sqlite", default: true }]);
  res = await client.callTool({ name: "list_tables", arguments: {} });
  assert.ok(res.structuredContent.tables.includes("customers"), textOf(res));
  assert.match(textOf(res), /\| customers \|/);
  res = await sql(client, "SELECT count(*) AS n FROM customers");
  assert.ok(!res.isError, textOf(res));
  assert.deepEqual(res.structuredContent.columns, ["n"]);
  assert.match(textOf(res), /^\| n \|\n\| --- \|\n\| \d+ \|/);
  res = await client.callTool({ name: "query", arguments: { sql: "SELECT count(*) AS n FROM customers" } });
  assert.ok(!res.isError, textOf(res));
  assert.deepEqual(res.structuredContent.columns, ["n"]);
  res = await client.callTool({ name: "query", arguments: { sql: "DELETE FROM customers" } });
  assert.ok(res.isError);
  assert.match(textOf(res), /execute_sql/);
  ok("list_sources, list_tables, query and execute_sql on the demo database, with structured content and a Markdown table; query refuses a DELETE");

  // The schema tools. The SDK's client checks each structuredContent
  // against the tool's outputSchema, and throws when it does not match.
  res = await client.callTool({ name: "describe_table", arguments: { tables: ["orders", "customers", "ordrs"] } });
  assert.ok(!res.isError, textOf(res));
  const [orders, customers] = res.structuredContent.tables;
  assert.match(orders, /^table orders ~\d+(\.\d)?k? rows\n/);
  assert.match(orders, /\n {2}customer_id int NOT NULL -> customers\.id\n/);
  assert.match(orders, /\n {2}status text NOT NULL in \{pending,shipped,delivered,cancelled\}\n/);
  assert.match(orders, /\nprimary key: \(id\)\n/);
  assert.match(orders, /\nforeign key: \(customer_id\) -> customers\(id\)\n/);
  assert.match(orders, /\nreferenced by: order_items\(order_id\) -> \(id\)\n/);
  assert.match(orders, /\nindex orders_ordered_at \(ordered_at\)\n/);
  assert.match(customers, /\nreferenced by: orders\(customer_id\) -> \(id\)\n/);
  assert.match(customers, /\n {2}email text NOT NULL UNIQUE\n/);
  assert.deepEqual(res.structuredContent.not_found, ["no table `ordrs`; did you mean `orders`?"]);
  assert.ok(textOf(res).includes("```text\n" + orders.trimEnd() + "\n```"), textOf(res));
  assert.match(textOf(res), /\nNo table `ordrs`; did you mean `orders`\?$/);
  res = await client.callTool({ name: "describe_table", arguments: { table: "ordrs" } });
  assert.ok(res.isError);
  ok("describe_table: full cards with keys, foreign keys both ways, indexes, allowed values and row estimates");

  res = await client.callTool({ name: "search_schema", arguments: { query: "customer" } });
  assert.ok(!res.isError, textOf(res));
  assert.equal(res.structuredContent.matches[0].table, "customers");
  assert.match(res.structuredContent.matches[0].card, /^customers\(id int PK, /);
  const viaColumn = res.structuredContent.matches.find((m) => m.table === "orders");
  assert.deepEqual(viaColumn.matching_columns, ["customer_id"]);
  assert.match(textOf(res), /\| customers \|  \| customers\(id int PK, /);
  ok("search_schema finds tables by name and by column");

  res = await client.callTool({ name: "profile_column", arguments: { table: "orders", column: "status" } });
  assert.ok(!res.isError, textOf(res));
  const profile = res.structuredContent;
  const counted = await sql(client, "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY n DESC, status");
  const total = await sql(client, "SELECT count(*) FROM orders");
  assert.equal(profile.rows_read, Number(total.structuredContent.rows[0][0]));
  assert.equal(profile.distinct, counted.structuredContent.rows.length);
  assert.equal(profile.nulls, 0);
  assert.deepEqual(
    profile.most_common.map((v) => [v.value, v.count]).sort(),
    counted.structuredContent.rows.map(([status, n]) => [status, Number(n)]).sort(),
  );
  assert.match(textOf(res), new RegExp(`\\| '${counted.structuredContent.rows[0][0]}' \\| ${counted.structuredContent.rows[0][1]} \\|`));
  ok("profile_column gives the counts a GROUP BY gives");

  res = await client.callTool({ name: "explain_sql", arguments: { sql: "SELECT c.city, count(*) FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.city" } });
  assert.ok(!res.isError, textOf(res));
  assert.match(res.structuredContent.plan, /SCAN|SEARCH/);
  assert.match(textOf(res), /^Plan on demo, not run/);
  const before = Number(total.structuredContent.rows[0][0]);
  res = await client.callTool({ name: "explain_sql", arguments: { sql: "DELETE FROM orders WHERE id > 0" } });
  assert.ok(!res.isError, textOf(res));
  assert.equal(await count(client, undefined, "SELECT count(*) FROM orders"), before);
  res = await client.callTool({ name: "explain_sql", arguments: { sql: "SELECT 1; DELETE FROM orders" } });
  assert.ok(res.isError);
  assert.match(res.structuredContent.refused, /more than one statement/);
  ok("explain_sql plans a query and a DELETE without running it, and refuses two statements");
  await client.close();
}

const home = env("AIQ_TEST_HOME");
let mode = "accept"; // how the elicitation handler answers
const { client, asked } = await connect(["--home", home, "--source", "db", "--confirm-timeout", "3s"], (params) => {
  switch (mode) {
    case "accept":
      return { action: "accept", content: { decision: "allow_once" } };
    case "decline":
      // A person reads the statement before saying no.
      return sleep(300).then(() => ({ action: "decline" }));
    case "host-decline":
      // A host that answers for its user, at once, as Codex's exec does.
      return { action: "decline" };
    default:
      return new Promise(() => {}); // never answers
  }
});
let changed = 0;
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
  changed++;
});

// Sources: never a password.
{
  const res = await client.callTool({ name: "list_sources", arguments: {} });
  assert.deepEqual(res.structuredContent.sources.map((s) => s.name), ["db", "pg", "maria"]);
  assert.doesNotMatch(JSON.stringify(res), /p@ss:w\/rd/);
  ok("list_sources names the three sources and no password");
}

// Writes: accept runs, decline and no answer do not.
{
  assert.equal(await count(client, "db", "SELECT count(*) FROM orders"), 4);
  mode = "accept";
  let res = await sql(client, "DELETE FROM orders WHERE id = 1");
  assert.ok(!res.isError, textOf(res));
  assert.equal(asked.length, 1);
  assert.match(asked[0].message, /DELETE FROM orders WHERE id = 1/);
  assert.match(asked[0].message, /writes to the database/);
  assert.equal(await count(client, "db", "SELECT count(*) FROM orders"), 3);
  ok("a DELETE the user allows once runs");

  mode = "decline";
  res = await sql(client, "DELETE FROM orders WHERE id = 2");
  assert.ok(res.isError);
  assert.equal(res.structuredContent.status, "rejected");
  assert.equal(await count(client, "db", "SELECT count(*) FROM orders"), 3);
  ok("a DELETE the user declines does not run");

  // The test's $BROWSER acts as the user on aiq's page, and rejects.
  mode = "host-decline";
  res = await sql(client, "DELETE FROM orders WHERE id = 2");
  assert.ok(res.isError);
  assert.equal(res.structuredContent.status, "rejected");
  assert.equal(await count(client, "db", "SELECT count(*) FROM orders"), 3);
  assert.match(textOf(res), /the user declined/);
  assert.doesNotMatch(JSON.stringify(res), /http:\/\/127\.0\.0\.1/);
  ok("a DELETE the host declines at once is asked on aiq's page in the browser, where the user rejects it");

  mode = "never";
  res = await sql(client, "DELETE FROM orders WHERE id = 2");
  assert.ok(res.isError);
  assert.match(textOf(res), /no answer came within 3s/);
  assert.equal(await count(client, "db", "SELECT count(*) FROM orders"), 3);
  ok("a DELETE the user never answers times out and does not run");
  mode = "decline";
}

// A client without elicitation: nothing runs.
{
  const other = await connect(["--home", home, "--source", "db", "--no-browser-confirm"]);
  const res = await sql(other.client, "DELETE FROM orders WHERE id = 2");
  assert.ok(res.isError);
  assert.match(textOf(res), /declares no elicitation/);
  assert.match(textOf(res), /writes to the database/);
  assert.match(textOf(res), /aiq-rpc ask/);
  assert.doesNotMatch(textOf(res), /declined/);
  assert.equal(await count(other.client, "db", "SELECT count(*) FROM orders"), 3);
  await other.client.close();
  ok("a client without elicitation, the browser page turned off, gets isError saying why and where to run it, and the DELETE does not run");
}

// Cancellation stops the statement on the server.
for (const [source, slow, running] of [
  ["pg", "SELECT pg_sleep(600)", "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'"],
  ["maria", "SELECT SLEEP(600)", "SELECT count(*) FROM information_schema.processlist WHERE info = 'SELECT SLEEP(600)'"],
]) {
  const abort = new AbortController();
  const call = client
    .callTool({ name: "execute_sql", arguments: { source, sql: slow } }, undefined, { signal: abort.signal, timeout: 300_000 })
    .then(
      () => "finished",
      () => "aborted",
    );
  const deadline = Date.now() + 120_000;
  while ((await count(client, source, running)) !== 1) {
    assert.ok(Date.now() < deadline, `${slow} never showed on ${source}`);
    await sleep(100);
  }
  abort.abort();
  assert.equal(await call, "aborted");
  while ((await count(client, source, running)) !== 0) {
    assert.ok(Date.now() < deadline, `${slow} still runs on ${source} after notifications/cancelled`);
    await sleep(100);
  }
  ok(`notifications/cancelled stops ${slow} on ${source}`);
}

// Resources: a schema card per source.
{
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri).sort(), [
    "aiq://sources/db/schema",
    "aiq://sources/maria/schema",
    "aiq://sources/pg/schema",
  ]);
  const res = await client.readResource({ uri: "aiq://sources/db/schema" });
  assert.equal(res.contents[0].mimeType, "text/markdown");
  assert.match(res.contents[0].text, /\norders\(id int PK, status text NOT NULL\) ~\d+ rows?\n/);
  ok("resources/list and resources/read give each source's schema card");
}

await client.close();
console.log(JSON.stringify({ ok: true, listChanged: changed }));
