-- A turn: one question, its streamed answer in the chat panel, and its
-- end (answered, cancelled, failed, or cut short by the server's death).
-- One turn runs at a time.
local chat = require("aiq.chat")
local config = require("aiq.config")
local message = require("aiq.message")
local render = require("aiq.render")
local result = require("aiq.result")
local selection = require("aiq.selection")
local server = require("aiq.server")
local session = require("aiq.session")

local M = {}

local current = nil -- the running turn
local show_thought, end_thought

function M.running()
  return current ~= nil
end

-- request_id is the id of the running turn's chat/turn, once sent.
function M.request_id()
  return current and current.req and current.req.id
end

-- busy says, and tells the user, whether a turn runs.
function M.busy()
  if current then
    server.notify("a question is still running; :AiqCancel stops it", vim.log.levels.WARN)
    return true
  end
  return false
end

-- render_opts are the options of render's tables and charts in the
-- panel: at most max_rows rows, no wider than the panel.
function M.render_opts()
  local key = config.options.keymaps.result
  return { max_rows = config.options.max_rows, max_width = chat.width(), more_key = type(key) == "string" and key or "" }
end

-- show_statement shows a statement's lines in the place of its early
-- rows (same callId) when they are shown, else as a new block. running is
-- the statement while its early rows are shown, nil once it ended.
local function show_statement(turn, call_id, running, lines)
  if type(call_id) ~= "string" then
    call_id = nil
  end
  turn.early = turn.early or {}
  local early = call_id and turn.early[call_id]
  local block = early and chat.replace(early.block, lines) and early.block or chat.add(lines)
  if call_id then
    turn.early[call_id] = running and { block = block, statement = running } or nil
  end
  return block
end

-- with_page gives a result whose rows went before (rowsSent: the
-- protocol's "Rows sent once") the rows of its early page.
local function with_page(turn, call_id, statement)
  local early = turn.early and type(call_id) == "string" and turn.early[call_id]
  if statement.rowsSent == true and early then
    statement.rows = early.statement.rows
    statement.rowsSent = nil
  end
end

-- stop_early marks the early rows whose result will not come as stopped.
local function stop_early(turn)
  for _, early in pairs(turn.early or {}) do
    local opts = M.render_opts()
    opts.stopped = true
    chat.replace(early.block, render.statement(early.statement, opts))
  end
  turn.early = nil
end

-- show_thought shows the model's reasoning as it streams, in a block of
-- its own under a "Thinking" line, folded once the reasoning ends.
show_thought = function(turn, text)
  if type(text) ~= "string" or text == "" then
    return
  end
  turn.thought = (turn.thought or "") .. text
  local lines = render.thought(turn.thought)
  if not (turn.thought_block and chat.replace(turn.thought_block, lines)) then
    turn.thought_block = chat.add(lines, { gap = true })
  end
end

-- end_thought folds the reasoning shown, once what follows it begins.
end_thought = function(turn)
  if turn.thought_block then
    chat.fold(turn.thought_block)
    turn.thought_block, turn.thought = nil, nil
  end
end

function M.progress(p)
  local turn = current
  if not turn or not turn.req or p.requestId ~= turn.req.id then
    return
  end
  if p.kind == "thought" then
    show_thought(turn, p.text)
    return
  end
  end_thought(turn)
  if p.kind == "text" then
    turn.streamed = true
    chat.stream(p.text)
  elseif p.kind == "tool_call" and turn.sql and p.sql == turn.sql then
    -- :AiqRun's statement, which the question shows already.
  elseif p.kind == "tool_call" then
    local block = render.tool_call(p.tool, p.sql, p.arguments)
    if block then
      chat.add(block, { gap = true })
    end
  elseif p.kind == "rows" and type(p.statement) == "table" then
    -- A SELECT's first rows while it runs; its result replaces them.
    show_statement(turn, p.callId, p.statement, render.statement(p.statement, M.render_opts()))
  elseif p.kind == "tool_result" then
    if type(p.statement) == "table" then
      with_page(turn, p.callId, p.statement)
      turn.shown_statements = (turn.shown_statements or 0) + 1
      local block = show_statement(turn, p.callId, nil, render.statement(p.statement, M.render_opts()))
      result.remember(block, p.statement)
    elseif p.tool ~= "render_chart" and p.summary and p.summary ~= vim.NIL then
      chat.add({ "→ " .. p.summary })
    end
  elseif p.kind == "chart" and type(p.chart) == "table" then
    chat.add(render.chart(p.chart, M.render_opts()), { gap = true })
  elseif p.kind == "status" and p.message then
    chat.set_running(p.message)
  end
end

-- finish_turn shows how a turn ended and stops the running indicator.
local function finish_turn(turn, err, result)
  if current == turn then
    current = nil
  end
  end_thought(turn)
  stop_early(turn)
  chat.set_running(nil)
  if err then
    if err.stopped then
      chat.add({ "✗ No answer: aiq-rpc is not running (see :messages). The next command starts it again." }, { gap = true })
    elseif err.code == -32800 then
      chat.add({ "_Cancelled._" }, { gap = true })
    else
      -- The panel is open and says it; a popup as well would stack a
      -- hit-enter prompt on top (the VS Code panel shows it there too).
      local lines = { "✗ " .. message.error_text(err) }
      if err.code == -32020 or err.code == -32021 then
        -- The model failed, or none is configured: a command checks why.
        lines[#lines + 1] = "Run :!aiq-rpc doctor to check the model's set-up step by step."
      end
      chat.add(lines, { gap = true })
    end
    return
  end
  -- Statements and text the server did not stream (no model: the SQL
  -- ran directly) are shown from the result.
  local statements = type(result.statements) == "table" and result.statements or {}
  for i = (turn.shown_statements or 0) + 1, #statements do
    chat.add(render.fence(statements[i].sql, "sql"), { gap = true })
    result.remember(chat.add(render.statement(statements[i], M.render_opts())), statements[i])
  end
  if not turn.streamed and type(result.answer) == "string" and result.answer ~= "" then
    chat.stream(result.answer)
  end
  if result.stopReason == "cancelled" then
    chat.add({ "_Cancelled._" }, { gap = true })
  end
  if type(result.savedTo) == "string" and result.savedTo ~= "" then
    session.remember(result.savedTo)
  end
end

-- start shows turn's question (the lines shown) in the panel and, once
-- the session is there, sends method with the params params_of(id) makes;
-- finish_turn ends it, as a turn of the model or a statement run alone.
local function start(turn, shown, method, params_of)
  current = turn
  chat.open()
  chat.add(shown, { gap = true })
  chat.add({ "", "## aiq" })
  chat.set_running("running…")
  session.with_session(function(id, err)
    if not id then
      return finish_turn(turn, err or { message = "no session" })
    end
    if turn.cancelled then
      return finish_turn(turn, { code = -32800, message = "cancelled" })
    end
    turn.req = server.conn:request(method, params_of(id), function(e, result)
      finish_turn(turn, e, result)
    end)
  end)
end

-- ask asks question, with the selection of lines line1..line2 when given.
function M.ask(question, line1, line2)
  if M.busy() then
    return
  end
  local sel = line1 and selection.get(line1, line2) or nil
  question = vim.trim(question or "")
  if question == "" and not sel then
    -- <C-c> at the prompt raises "Keyboard interrupt": the user gave up.
    local ok, typed = pcall(vim.fn.input, { prompt = "Ask aiq: " })
    question = ok and vim.trim(typed or "") or ""
    if question == "" then
      return
    end
  end
  start({ streamed = false }, render.question(question, sel), "chat/turn", function(id)
    local params = { sessionId = id, selection = sel }
    if question ~= "" then
      params.query = question
    end
    return params
  end)
end

-- run_sql runs one statement without the model (chat/runSql): through
-- the same path as the model's, shown as a turn of its own.
function M.run_sql(sql)
  sql = vim.trim(sql or "")
  if sql == "" then
    server.notify("no SQL to run: put the cursor on a statement or select one", vim.log.levels.WARN)
    return
  end
  if M.busy() then
    return
  end
  start({ streamed = false, sql = sql }, render.question("", { text = sql, languageId = "sql" }), "chat/runSql", function(id)
    return { sessionId = id, sql = sql }
  end)
end

function M.cancel()
  local turn = current
  if not turn then
    server.notify("no question is running")
    return
  end
  turn.cancelled = true
  chat.set_running("cancelling…")
  if turn.req then
    server.conn:cancel(turn.req)
  end
end

return M
