-- Results the user works with after the answer: the whole kept result of
-- a statement in a tab of its own, an export of every row to a file, and
-- a statement run again. The panel remembers which block shows which
-- statement.
local chat = require("aiq.chat")
local render = require("aiq.render")
local server = require("aiq.server")

local M = {}

local api = vim.api

-- shown lists the statements the panel shows, oldest first: { block, statement }.
local shown = {}

-- remember notes that block shows statement (a finished one, with rows or
-- not).
function M.remember(block, statement)
  if block and type(statement) == "table" and type(statement.sql) == "string" then
    shown[#shown + 1] = { block = block, statement = statement }
  end
end

-- forget drops what the panel no longer shows.
function M.forget()
  shown = {}
end

-- at_cursor is the statement whose block holds the cursor in the panel,
-- else the last one shown.
function M.at_cursor()
  local buf = api.nvim_get_current_buf()
  if buf == chat.buffer() then
    local row = api.nvim_win_get_cursor(0)[1] - 1
    for i = #shown, 1, -1 do
      local first, last = chat.block_rows(shown[i].block)
      -- The block, or the SQL fence and blank line just above it.
      if first and row <= last and row >= first - 4 then
        return shown[i].statement
      end
    end
  end
  for i = #shown, 1, -1 do
    if chat.block_rows(shown[i].block) then
      return shown[i].statement
    end
  end
  return shown[#shown] and shown[#shown].statement
end

-- open_at_cursor opens the statement under the cursor in a tab.
function M.open_at_cursor()
  local st = M.at_cursor()
  if not st then
    server.notify("no result to open: ask a question that runs SQL first", vim.log.levels.WARN)
    return
  end
  M.open(st)
end

-- scratch makes a buffer that holds lines and nothing else.
local function scratch(name, lines)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  local bo = vim.bo[buf]
  bo.buftype, bo.bufhidden, bo.swapfile, bo.modifiable = "nofile", "wipe", false, false
  pcall(api.nvim_buf_set_name, buf, name)
  return buf
end

local tabs = 0

-- TAB_CELL is the widest a column of the tab gets: a longer value is cut
-- with "…" (the columns stay aligned); :AiqExport writes it whole.
local TAB_CELL = 40

-- open shows every kept row and column of a statement in a new tab: the
-- table in a window that does not wrap, its header in a window of two
-- lines above that follows it sideways, so that it stays in view.
function M.open(st)
  if type(st.columns) ~= "table" or #st.columns == 0 then
    server.notify("this statement returned no rows to show", vim.log.levels.WARN)
    return
  end
  local rows = type(st.rows) == "table" and st.rows or {}
  local lines = render.table(st.columns, rows, { max_rows = #rows, total = tonumber(st.rowCount), max_cell = TAB_CELL, types = st.columnTypes })
  local n = tonumber(st.rowCount) or #rows
  if st.truncated then
    lines[#lines + 1] = string.format("(the first %d of %d rows; :AiqExport writes them all)", #rows, n)
  else
    lines[#lines + 1] = string.format("(%d row%s)", n, n == 1 and "" or "s")
  end
  tabs = tabs + 1
  vim.cmd("tabnew")
  local body_win = api.nvim_get_current_win()
  local body = scratch(string.format("aiq://result/%d", tabs), vim.list_slice(lines, 3))
  api.nvim_win_set_buf(body_win, body)
  vim.cmd("aboveleft 2split")
  local head_win = api.nvim_get_current_win()
  api.nvim_win_set_buf(head_win, scratch(string.format("aiq://result/%d/header", tabs), { lines[1], lines[2] }))
  for _, win in ipairs({ head_win, body_win }) do
    vim.wo[win].wrap, vim.wo[win].number, vim.wo[win].relativenumber = false, false, false
    vim.wo[win].list, vim.wo[win].foldenable = false, false
  end
  vim.wo[head_win].winfixheight = true
  vim.wo[head_win].cursorline = false
  api.nvim_set_current_win(body_win)
  -- The header follows the table sideways.
  api.nvim_create_autocmd("WinScrolled", {
    buffer = body,
    callback = function()
      if not (api.nvim_win_is_valid(head_win) and api.nvim_win_is_valid(body_win)) then
        return true
      end
      local left = api.nvim_win_call(body_win, function()
        return vim.fn.winsaveview().leftcol
      end)
      api.nvim_win_call(head_win, function()
        vim.fn.winrestview({ leftcol = left })
      end)
    end,
  })
  for _, buf in ipairs({ body, api.nvim_win_get_buf(head_win) }) do
    vim.keymap.set("n", "q", "<cmd>tabclose<CR>", { buffer = buf, silent = true, desc = "aiq: close the result" })
  end
end

-- FORMATS maps a file's extension to an export format.
local FORMATS = { csv = "csv", json = "json", md = "markdown", markdown = "markdown" }

-- export writes every row of the statement under the cursor (or the last
-- one) to path, in the format its extension names. A file already there is
-- replaced only with bang, or when the user says so (No by default).
function M.export(path, bang)
  path = vim.trim(path or "")
  if path == "" then
    server.notify("give the file to write: :AiqExport orders.csv (.csv, .json or .md)", vim.log.levels.WARN)
    return
  end
  local format = FORMATS[(vim.fn.fnamemodify(path, ":e") or ""):lower()]
  if not format then
    server.notify("the file's extension names the format: .csv, .json or .md", vim.log.levels.WARN)
    return
  end
  local st = M.at_cursor()
  if not st then
    server.notify("no result to export: ask a question that runs SQL first", vim.log.levels.WARN)
    return
  end
  path = vim.fn.fnamemodify(vim.fn.expand(path), ":p")
  local overwrite = bang == true
  if not overwrite and vim.fn.filereadable(path) == 1 then
    if vim.fn.confirm(path .. " exists. Replace it?", "&No\n&Yes", 1) ~= 2 then
      return
    end
    overwrite = true
  end
  local params = { format = format, path = path, overwrite = overwrite }
  if type(st.callId) == "string" and st.callId ~= "" then
    params.callId = st.callId
  else
    params.sql = st.sql
  end
  require("aiq.session").with_session(function(id, err)
    if not id then
      server.report(err)
      return
    end
    params.sessionId = id
    server.notify("exporting to " .. path .. "…")
    server.conn:request("result/export", params, function(e, res)
      if e then
        server.report(e)
        return
      end
      server.notify(string.format("exported %d rows to %s", res.rowCount or 0, res.path or path))
    end)
  end)
end

-- rerun runs the statement under the cursor (or the last one) again.
function M.rerun()
  local st = M.at_cursor()
  if not st then
    server.notify("no statement to run again: ask a question that runs SQL first", vim.log.levels.WARN)
    return
  end
  require("aiq.turn").run_sql(st.sql)
end

-- statement_at returns the SQL around line (1-based) of the current
-- buffer: the lines between the blank lines around it.
function M.statement_at(line)
  local last = api.nvim_buf_line_count(0)
  local first, stop = line, line
  local function blank(l)
    return vim.trim(api.nvim_buf_get_lines(0, l - 1, l, false)[1] or "") == ""
  end
  while first > 1 and not blank(first - 1) do
    first = first - 1
  end
  while stop < last and not blank(stop + 1) do
    stop = stop + 1
  end
  return table.concat(api.nvim_buf_get_lines(0, first - 1, stop, false), "\n")
end

-- run runs the lines line1..line2, or the statement under the cursor.
function M.run(line1, line2)
  local sql
  if line1 then
    sql = table.concat(api.nvim_buf_get_lines(0, line1 - 1, line2, false), "\n")
  else
    sql = M.statement_at(api.nvim_win_get_cursor(0)[1])
  end
  require("aiq.turn").run_sql(sql)
end

return M
