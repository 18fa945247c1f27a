-- Early rows (chat/progress kind "rows", sent while a SELECT still runs):
-- the panel shows the first page at once with a running mark, updates it
-- in place, and replaces it with the statement's result when the
-- tool_result of the same callId comes, even after later blocks. Early
-- rows whose result never comes (the turn is cancelled) say they stopped.
-- The notifications are synthetic, sent through the plugin's handler
-- while the scripted model holds the turn open.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

local sql = "SELECT id, status FROM big_orders"

local function send(params)
  params.requestId = require("aiq.turn").request_id()
  params.sessionId = require("aiq.session").id()
  require("aiq.server").conn.handlers.notification("chat/progress", params)
end

local function statement(status, row_count, rows)
  return { sql = sql, status = status, rowCount = row_count, columns = { "id", "status" }, rows = rows, truncated = true }
end

local function count(text)
  local n = 0
  for _, line in ipairs(T.panel()) do
    if line == text then
      n = n + 1
    end
  end
  return n
end

local header = "| id  | status    |"

T.run(function()
  T.setup({ max_rows = 2 })
  vim.cmd("AiqAsk how many big orders?")
  T.wait_model(1)
  T.truthy(require("aiq.turn").request_id(), "the turn's request id")

  send({ kind = "tool_call", tool = "execute_sql", callId = "call_1", arguments = { sql = sql }, sql = sql })
  send({ kind = "rows", tool = "execute_sql", callId = "call_1",
    statement = statement("running", 500, { { 1, "delivered" }, { 2, "pending" }, { 3, "shipped" } }) })
  T.expect(header, "the early table")
  T.expect("⏳ 500 rows so far, still running…", "the running mark")
  T.expect("… 498 more rows", "the rows past max_rows")

  -- More rows read: the same table, updated in place.
  send({ kind = "rows", tool = "execute_sql", callId = "call_1",
    statement = statement("running", 1500, { { 1, "delivered" }, { 2, "pending" }, { 3, "shipped" } }) })
  T.eq(count(header), 1, "tables after an update")
  T.expect("⏳ 1500 rows so far, still running…", "the updated running mark")
  T.eq(count("⏳ 500 rows so far, still running…"), 0, "the first mark, replaced")

  -- A later block, then the result: it takes the early table's place.
  send({ kind = "text", text = "Counting…" })
  send({ kind = "tool_result", tool = "execute_sql", callId = "call_1", summary = "done",
    statement = statement("success", 1000000, { { 1, "delivered" }, { 2, "pending" } }) })
  T.eq(count(header), 1, "tables after the result")
  T.truthy(not T.has("still running"), "the running mark is gone")
  local text = T.panel_text()
  local result_at = text:find("(1000000 rows)", 1, true)
  T.truthy(result_at and result_at < text:find("Counting…", 1, true), "the result is where the early rows were:\n" .. text)

  -- Early rows whose result never comes: the turn is cancelled.
  send({ kind = "rows", tool = "execute_sql", callId = "call_2",
    statement = statement("running", 42, { { 7, "pending" } }) })
  T.expect("⏳ 42 rows so far, still running…", "the second early table")
  vim.cmd("AiqCancel")
  T.wait_turn()
  T.expect("(42 rows read before it stopped)", "early rows of a cancelled turn")
  T.truthy(not T.has("still running"), "no running mark after the turn")
  T.eq(#T.errors(), 0, "error messages")
end)
