-- Early rows from the real server: the scripted model runs a SELECT of
-- 20,000 rows on SQLite (few enough for a race-detector server on a loaded
-- machine to end within its 30 s statement limit), whose first page the
-- server sends as chat/progress "rows" while the statement still runs. The panel is read
-- at the moment the plugin has handled that notification (it shows the
-- first rows with a running mark) and again after the turn (the result
-- took the early table's place, with the same first rows).
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

-- table_rows are the lines of the panel's table body: "| 1 | 2 |" and so on.
local function table_rows(lines)
  local out = {}
  for _, line in ipairs(lines) do
    if line:match("^|%s*%d+%s*|%s*%d+%s*|$") then
      out[#out + 1] = line
    end
  end
  return out
end

local function count(lines, text)
  local n = 0
  for _, line in ipairs(lines) do
    if line:find(text, 1, true) then
      n = n + 1
    end
  end
  return n
end

T.run(function()
  T.setup({ max_rows = 3 })
  -- Seen when the plugin's handler has taken each chat/progress in.
  local seen = {}
  local conn = require("aiq.server").conn
  T.truthy(conn, "the plugin's connection after setup")
  local handle = conn.handlers.notification
  conn.handlers.notification = function(method, params)
    local sent = type(params) == "table" and type(params.statement) == "table" and params.statement.rowsSent
    local r = handle(method, params)
    if method == "chat/progress" and type(params) == "table" then
      seen[#seen + 1] = { kind = params.kind, callId = params.callId, statement = params.statement, panel = T.panel(), rows_sent = sent }
    end
    return r
  end

  vim.cmd("AiqAsk list the numbers")
  T.wait_turn()

  -- The answer's text may come in pieces: only the SQL's kinds count.
  local kinds = {}
  for _, s in ipairs(seen) do
    if s.kind ~= "text" then
      kinds[#kinds + 1] = s.kind
    end
  end
  T.eq(kinds, { "tool_call", "rows", "tool_result" }, "the notifications, in order")
  local rows, result = seen[2], seen[3]
  T.eq(rows.callId, "call_1", "the early rows' callId")
  T.eq(result.callId, "call_1", "the result's callId")
  T.eq(rows.statement.status, "running", "the early rows' status")
  T.eq(rows.statement.rowCount, 501, "rows read when the first page went out")
  -- The page is sent once (rowsOnce): the result refers to it.
  T.eq(result.rows_sent, true, "the result came without the page")
  T.eq(result.statement.rowsSent, nil, "the plugin put the early page in the result")
  T.eq(#result.statement.rows, 500, "the result's rows, from the early page")

  -- At the early rows: the first rows, the rest counted, a running mark.
  local early = rows.panel
  T.eq(table_rows(early), { "|   1 |     2 |", "|   2 |     4 |", "|   3 |     6 |" }, "the early table's rows:\n" .. table.concat(early, "\n"))
  T.eq(count(early, "⏳ 501 rows so far, still running…"), 1, "running marks at the early rows")
  T.eq(count(early, "… 498 more rows"), 1, "the rows past max_rows, at the early rows")
  T.eq(count(early, "| i "), 1, "tables at the early rows")

  -- At the result, and after the turn: the same first rows, the final
  -- count, no running mark, one table.
  for what, lines in pairs({ ["at the result"] = result.panel, ["after the turn"] = T.panel() }) do
    T.eq(table_rows(lines), table_rows(early), "the result's rows " .. what)
    T.eq(count(lines, "still running"), 0, "running marks " .. what)
    T.eq(count(lines, "(20000 rows)"), 1, "the final count " .. what)
    T.eq(count(lines, "| i "), 1, "tables " .. what)
  end
  T.expect("20,000 numbers.", "the answer")
  T.eq(#T.errors(), 0, "error messages")
end)
