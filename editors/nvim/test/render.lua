-- Unit test of lua/aiq/render.lua: pure text, no server.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")
local render = require("aiq.render")

local function width(s)
  return vim.fn.strdisplaywidth(s)
end

T.run(function()
  -- A statement stopped by the statement timeout says so; one the user
  -- cancelled says "cancelled".
  T.eq(render.statement({ status = "cancelled", error = "took longer than the statement timeout (30s), so it was stopped" }),
    { "✗ cancelled: took longer than the statement timeout (30s), so it was stopped" }, "a timed-out statement")
  T.eq(render.statement({ status = "cancelled", error = "cancelled: the statement was stopped before it finished" }),
    { "✗ cancelled" }, "a cancelled statement")

  -- Wide characters count double, NULL reads NULL, numbers align right
  -- and integers show without a decimal point.
  local lines = render.table({ "name", "qty" }, { { "漢字", 3 }, { "ab", vim.NIL }, { vim.NIL, 12.5 } })
  T.eq(lines, {
    "| name | qty  |",
    "|------|-----:|",
    "| 漢字 |    3 |",
    "| ab   | NULL |",
    "| NULL | 12.5 |",
  }, "a table with wide characters and NULLs")
  for _, line in ipairs(lines) do
    T.eq(width(line), width(lines[1]), "the display width of " .. line)
  end

  -- A numeric's value comes as a string that keeps its scale: its type
  -- (columnTypes) aligns it right; a text of digits stays on the left.
  lines = render.table({ "total", "code", "day" }, { { "31.70", "007", "2024-01-02" }, { "1234.50", "12", vim.NIL } },
    { types = { "numeric", "text", "date" } })
  T.eq(lines, {
    "| total   | code | day        |",
    "|--------:|------|------------|",
    "|   31.70 | 007  | 2024-01-02 |",
    "| 1234.50 | 12   | NULL       |",
  }, "a table aligned by its column types")

  -- Rows past max_rows are counted, with the rows the statement returned
  -- beyond those sent.
  local rows = {}
  for i = 1, 7 do
    rows[i] = { i, "row " .. i }
  end
  lines = render.table({ "id", "label" }, rows, { max_rows = 5, total = 600 })
  T.eq(#lines, 2 + 5 + 1, "a capped table's line count")
  T.eq(lines[#lines], "… 595 more rows", "the truncation line")
  T.eq(render.table({ "n" }, { { 1 }, { 2 } }, { max_rows = 1 })[4], "… 1 more row", "one hidden row")

  T.eq(render.shorten("abcdef", 6), "abcdef", "a text that fits")
  T.eq(render.shorten("abcdef", 4), "abc…", "a cut text")
  T.eq(render.shorten("漢字漢字", 5), "漢字…", "wide characters are cut by display width")
  T.eq(render.shorten("a🚀b🚀c", 4), "a🚀…", "an emoji takes two cells")
  T.eq(render.shorten("Zoë Ångström", 6), "Zoë Å…", "accented letters take one cell")

  -- A table wider than the panel: the widest columns are narrowed and
  -- their cells cut with "…"; narrow ones keep their width.
  lines = render.table({ "id", "note", "status" }, {
    { 1, string.rep("long note ", 10), "delivered" },
    { 2, "short", "pending" },
  }, { max_width = 40 })
  T.eq(lines, {
    "| id  | note               | status    |",
    "|----:|--------------------|-----------|",
    "|   1 | long note long no… | delivered |",
    "|   2 | short              | pending   |",
  }, "a wide table fitted in 40 cells")
  T.eq(width(lines[1]), 40, "the fitted table's width")
  lines = render.table({ "a", "b" }, { { string.rep("x", 50), string.rep("漢", 30) } }, { max_width = 30 })
  for _, line in ipairs(lines) do
    T.truthy(width(line) <= 30, "a line wider than 30 cells: " .. line)
  end
  -- Too many columns to read at 8 cells each: the first ones are kept,
  -- and a line names the others.
  lines = render.table({ "id", "name", "email", "city", "country" }, {
    { 1, "Zoé Moreau", "zoe.moreau@example.com", "Toronto", "Canada" },
  }, { max_width = 40 })
  T.eq(lines, {
    "| id  | name     | email    | city    |",
    "|----:|----------|----------|---------|",
    "|   1 | Zoé Mor… | zoe.mor… | Toronto |",
    "→ 1 more column: gl to see all (country)",
  }, "a table with columns left out")
  T.eq(render.table({ "n" }, { { 1 } }, { max_width = 40 }), render.table({ "n" }, { { 1 } }), "a table that fits is as it was")

  -- Values that would break a row stay on one line.
  T.eq(render.cell("a\nb\tc"), "a⏎b c", "a cell with a newline and a tab")
  T.eq(render.cell({ 1, 2 }), "[1,2]", "a JSON array cell")
  T.eq(render.cell(true), "true", "a boolean cell")
  T.eq(render.cell(1e20), "1e+20", "a huge number")
  T.eq(render.cell(1234567890123456), "1234567890123456", "every digit of an integer below 2^53")
  T.eq(render.cell(1234567.123456789), "1234567.123456789", "every digit of a decimal")
  T.eq(render.cell(0.1), "0.1", "the shortest form of a decimal")
  T.eq(render.cell(-42), "-42", "a negative integer")

  -- Statements: rows with a count, writes, failures.
  T.eq(render.statement({ status = "success", columns = { "n" }, rows = { { 4 } }, rowCount = 1 }), {
    "| n   |",
    "|----:|",
    "|   4 |",
    "(1 row)",
  }, "a statement's rows")
  T.eq(render.statement({ status = "success", columns = vim.NIL, rowCount = 3 }), { "✓ 3 rows affected" }, "a write")
  T.eq(render.statement({ status = "rejected" }), { "✗ Rejected: the statement did not run." }, "a rejected write")
  T.eq(render.statement({ status = "rejected", error = "You declined this statement, so it did not run." }),
    { "✗ You declined this statement, so it did not run." }, "a rejected write, in the server's words")
  T.eq(render.statement({ status = "error", error = "no such table: x" }), { "✗ no such table: x" }, "a failed statement")

  -- A fence is longer than any backtick run inside.
  T.eq(render.fence("SELECT 1\n", "sql"), { "```sql", "SELECT 1", "```" }, "a sql block")
  T.eq(render.fence("a ```` b", "md"), { "`````md", "a ```` b", "`````" }, "a block holding backticks")

  -- Charts as text bars, scaled to the largest value.
  T.eq(render.chart({ chartType = "bar", x = "status", y = "n", title = "Orders", labels = { "a", "bbb" }, values = { 10, 5 } }, { bar_width = 4 }), {
    "📊 Orders (bar chart)",
    "  a   ████ 10",
    "  bbb ██ 5",
  }, "a bar chart")
  T.eq(render.chart({ chartType = "pie", x = "k", y = "v", labels = { "x", "y" }, values = { 3, 1 } }, { bar_width = 3 })[2], "  x ███ 3 (75%)", "a pie slice")
  T.eq(render.chart({ chartType = "scatter", x = "a", y = "b", title = "", points = { { x = 1, y = 2 } } }), {
    "📊 b by a (scatter chart)",
    "  (1, 2)",
  }, "a scatter chart")

  -- The question and the history.
  T.eq(render.question("what?", { text = "SELECT 1", languageId = "sql" }), { "## You", "what?", "", "```sql", "SELECT 1", "```" }, "a question with a selection")

  -- The complete messages of a session read as the turns did live: the
  -- SQL and its table, the chart, a rejected write, the answers; rows kept
  -- as objects (older files) and the AIQ CLI's count-only results too.
  local function call(id, name, args)
    return { id = id, type = "function", ["function"] = { name = name, arguments = vim.json.encode(args) } }
  end
  local messages = {
    { role = "user", content = "orders per status?" },
    { role = "assistant", content = "", tool_calls = { call("c1", "execute_sql", { sql = "SELECT status, count(*) AS n FROM orders GROUP BY status" }) } },
    { role = "tool", tool_call_id = "c1", content = vim.json.encode({ status = "success", row_count = 2, columns = { "status", "n" }, rows = { { "delivered", 2 }, { status = "pending", n = 1 } }, truncated = false }) },
    { role = "assistant", content = "", tool_calls = { call("c2", "render_chart", { chart_type = "bar", x = "status", y = "n" }) } },
    { role = "tool", tool_call_id = "c2", content = vim.json.encode({ chartType = "bar", x = "status", y = "n", title = "By status", labels = { "delivered", "pending" }, values = { 2, 1 } }) },
    { role = "assistant", content = "Two delivered, one pending." },
    { role = "user", content = "delete them" },
    { role = "assistant", content = "", tool_calls = { call("c3", "execute_sql", { sql = "DELETE FROM orders" }), call("c4", "list_tables", {}) } },
    { role = "tool", tool_call_id = "c3", content = vim.json.encode({ status = "rejected", error = "not run: the user declined this statement" }) },
    { role = "tool", tool_call_id = "c4", content = "orders" },
    { role = "assistant", content = "Not deleted." },
    { role = "user", content = "count" },
    { role = "assistant", content = "", tool_calls = { call("c5", "execute_sql", { sql = "SELECT count(*) FROM orders" }) } },
    { role = "tool", tool_call_id = "c5", content = '{"displayed":true,"row_count":1,"status":"success"}' },
    { role = "assistant", content = "" },
    -- A turn without a model: the server's summary is left out; its call
    -- id is the one of an earlier turn (ids are unique within a turn).
    { role = "user", content = "DELETE FROM orders WHERE id = 1" },
    { role = "assistant", content = "", tool_calls = { call("c5", "execute_sql", { sql = "DELETE FROM orders WHERE id = 1" }) } },
    { role = "tool", tool_call_id = "c5", content = vim.json.encode({ status = "rejected", error = "not run: the user declined" }) },
    { role = "assistant", content = "The statement was not run: not run: the user declined. Do not retry it." },
  }
  T.eq(render.messages(messages, { bar_width = 2 }), {
    "## You",
    "orders per status?",
    "",
    "## aiq",
    "```sql",
    "SELECT status, count(*) AS n FROM orders GROUP BY status",
    "```",
    "| status    | n   |",
    "|-----------|----:|",
    "| delivered |   2 |",
    "| pending   |   1 |",
    "(2 rows)",
    "",
    "📊 By status (bar chart)",
    "  delivered ██ 2",
    "  pending   █ 1",
    "",
    "Two delivered, one pending.",
    "",
    "## You",
    "delete them",
    "",
    "## aiq",
    "```sql",
    "DELETE FROM orders",
    "```",
    "✗ Rejected: the statement did not run.",
    "",
    "🔧 list_tables",
    "",
    "Not deleted.",
    "",
    "## You",
    "count",
    "",
    "## aiq",
    "```sql",
    "SELECT count(*) FROM orders",
    "```",
    "(1 row; the session file keeps no rows)",
    "",
    "## You",
    "DELETE FROM orders WHERE id = 1",
    "",
    "## aiq",
    "```sql",
    "DELETE FROM orders WHERE id = 1",
    "```",
    "✗ Rejected: the statement did not run.",
  }, "a session's complete messages")
  T.eq(render.messages({}), {}, "no messages")
end)
