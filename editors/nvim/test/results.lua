-- Results to work with: a wide result says how many columns the panel
-- leaves out and gl opens the whole of it in a tab (no wrap, the header
-- above, following it sideways); :AiqExport writes every row to a file;
-- :AiqRun runs the SQL under the cursor and :AiqRerun the panel's
-- statement again, without the model.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

local function count(text)
  local n = 0
  for _, line in ipairs(T.panel()) do
    if line:find(text, 1, true) then
      n = n + 1
    end
  end
  return n
end

T.run(function()
  vim.o.columns = 80
  T.setup()
  vim.cmd("AiqAsk show everything about the orders")
  T.wait_turn()
  T.expect("8 more columns: gl to see all", "the wide result's note")

  -- gl, from the panel, opens the whole result in a tab.
  local chat = require("aiq.chat")
  local panel_tab = vim.api.nvim_get_current_tabpage()
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == chat.buffer() then
      vim.api.nvim_set_current_win(win)
    end
  end
  vim.api.nvim_win_set_cursor(0, { #T.panel() - 3, 0 })
  vim.api.nvim_feedkeys("gl", "x", false)
  T.truthy(vim.api.nvim_get_current_tabpage() ~= panel_tab, "gl opened a tab")
  local wins = vim.api.nvim_tabpage_list_wins(0)
  T.eq(#wins, 2, "the result's windows: header and table")
  local head = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[1]), 0, -1, false)
  local body = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[2]), 0, -1, false)
  T.eq(#head, 2, "the header's lines")
  T.truthy(head[1]:find("| c12 ", 1, true), "the header shows column 12: " .. head[1])
  T.truthy(body[1]:find("| twelve-1 ", 1, true), "the first row shows column 12: " .. body[1])
  T.eq(#body, 5, "four rows and the count")
  -- A long value is cut with "…", and the columns stay aligned.
  T.truthy(body[1]:find("| three-1, a note longer than a column of… | four-1 ", 1, true), "the long value is cut: " .. body[1])
  local function bars(line)
    local at = {}
    for i in line:gmatch("()|") do
      at[#at + 1] = vim.fn.strdisplaywidth(line:sub(1, i))
    end
    return at
  end
  for i = 1, 4 do
    T.eq(bars(body[i]), bars(head[1]), "row " .. i .. "'s columns line up with the header")
  end
  T.eq(vim.wo[wins[2]].wrap, false, "the table does not wrap")
  T.eq(vim.api.nvim_win_get_height(wins[1]), 2, "the header keeps two lines")
  -- Scrolled sideways, the header follows.
  vim.api.nvim_set_current_win(wins[2])
  vim.cmd("normal! 40zl")
  vim.cmd("doautocmd WinScrolled")
  T.wait("the header to follow", function()
    return vim.api.nvim_win_call(wins[1], function()
      return vim.fn.winsaveview().leftcol
    end) == 40
  end, 5000)
  T.screenshot("nvim-result-tab")
  vim.cmd("tabclose")

  -- :AiqExport writes every row, the format from the extension.
  local path = T.env.AIQ_TEST_TMP .. "/orders.csv"
  vim.cmd("AiqExport " .. path)
  T.wait("the export", function()
    return vim.loop.fs_stat(path) ~= nil
  end)
  local data = table.concat(vim.fn.readfile(path, "b"), "\n")
  T.truthy(data:find("^id,status,c3,"), "the CSV's header: " .. data)
  T.truthy(data:find("4,shipped,", 1, true), "the CSV's last row: " .. data)
  T.eq(#vim.fn.readfile(path), 5, "the header and four rows")

  -- :AiqRun runs the statement under the cursor, without the model.
  T.sql_buffer({ "SELECT 1;", "", "SELECT status, count(*) AS n", "FROM orders GROUP BY status ORDER BY status", "", "SELECT 2;" })
  vim.api.nvim_win_set_cursor(0, { 4, 0 })
  vim.cmd("AiqRun")
  T.wait_turn()
  T.expect(table.concat(T.STATUS_TABLE, "\n"), "the statement's table")
  T.eq(count("SELECT status, count(*) AS n"), 1, "the SQL shown once, as the question")

  -- :AiqRerun runs the last statement again.
  vim.cmd("AiqRerun")
  T.wait_turn()
  T.eq(count("(3 rows)"), 2, "the statement ran again")

  -- A conversation opened again shows a result as the user saw it, from
  -- chat/history's seen: every row the panel got, real values for masked
  -- columns, and the count. Where seen has no rows (a session from the
  -- CLI, or rows dropped to keep its file small) the panel says how many
  -- of the rows the session kept, and how to get all of them.
  local render = require("aiq.render")
  local call = { id = "c1", type = "function", ["function"] = { name = "execute_sql", arguments = vim.json.encode({ sql = "SELECT id, email FROM customers" }) } }
  local kept_rows = {}
  for i = 1, 23 do
    kept_rows[i] = { i, "<masked:email:3f2a91c04d00>" }
  end
  local messages = {
    { role = "user", content = "who are the customers?" },
    { role = "assistant", content = "", tool_calls = { call } },
    { role = "tool", tool_call_id = "c1", content = vim.json.encode({ status = "success", row_count = 500, columns = { "id", "email" }, rows = kept_rows, truncated = true }) },
    { role = "assistant", content = "Here they are." },
  }
  local seen_rows = {}
  for i = 1, 500 do
    seen_rows[i] = { i, string.format("user%d@example.com", i) }
  end
  local function text(lines)
    return table.concat(lines, "\n")
  end
  local opts = { max_rows = 30 }
  local saw = text(render.messages(messages, opts, { c1 = { columns = { "id", "email" }, rows = seen_rows, rowCount = 500, rowsKept = true } }))
  T.truthy(saw:find("|   1 | user1@example.com ", 1, true), "the real value, as seen: " .. saw)
  T.truthy(not saw:find("<masked:", 1, true), "no token where the user saw a value")
  T.truthy(saw:find("… 470 more rows", 1, true), "the rows past max_rows, as live")
  T.truthy(saw:find("(500 rows)", 1, true), "the count")
  T.truthy(not saw:find("kept", 1, true), "nothing said to be missing")
  for _, seen in ipairs({ vim.NIL, { c1 = { columns = { "id", "email" }, rowCount = 500, rowsKept = false } } }) do
    local lines = render.messages(messages, opts, seen ~= vim.NIL and seen or nil)
    local kept = text(lines)
    T.truthy(kept:find("(23 of 500 rows kept; :AiqRerun for all)", 1, true), "the rows not kept are said so: " .. kept)
    T.truthy(not kept:find("more rows", 1, true), "rows not kept are not more rows to see: " .. kept)
  end
  T.eq(#T.errors(), 0, "error messages")
end)
