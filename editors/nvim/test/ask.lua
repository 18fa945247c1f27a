-- :'<,'>AiqAsk on a visual selection of SQL: the panel opens without
-- taking the focus, the model's text streams in piece by piece, and the
-- statement's rows from SQLite show as an aligned table. The Go test checks
-- what the model was sent.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

local answer = "It counts the orders of each status: two are delivered, one is pending and one shipped."

-- lines_in says whether want appears in got as consecutive lines.
local function lines_in(got, want)
  for i = 1, #got - #want + 1 do
    if vim.deep_equal(vim.list_slice(got, i, i + #want - 1), want) then
      return true
    end
  end
  return false
end

T.run(function()
  T.setup()
  local buf = T.sql_buffer({
    "-- orders per status",
    "SELECT status, count(*) AS n",
    "FROM orders GROUP BY status;",
  }, T.env.AIQ_TEST_TMP .. "/orders.sql")
  local win = vim.api.nvim_get_current_win()
  vim.cmd("normal! 2GVj\27")
  vim.cmd("'<,'>AiqAsk what does this do?")

  -- The panel shows, and the focus stays in the user's window.
  T.eq(#vim.api.nvim_list_wins(), 2, "windows after :AiqAsk (the user's and the panel)")
  T.eq(vim.api.nvim_get_current_win(), win, "the focused window")
  T.expect("⏳ running… (<C-c> to cancel)", "while the turn runs")

  -- The answer streams: the panel shows parts of it before all of it.
  local partial = {}
  T.wait("the end of the turn", function()
    for _, line in ipairs(T.panel()) do
      if line:sub(1, 8) == "It count" and line ~= answer then
        partial[line] = true
      end
    end
    return not require("aiq.turn").running()
  end)
  T.truthy(vim.tbl_count(partial) >= 2, "the answer came in one piece, not streamed: " .. vim.inspect(partial))
  T.truthy(not require("aiq.chat").is_running(), "the running indicator is gone")

  local lines = T.panel()
  for _, block in ipairs({
    { "## You", "what does this do?", "", "```sql", "SELECT status, count(*) AS n", "FROM orders GROUP BY status;", "```" },
    { "```sql", "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status", "```" },
    -- The rows as SQLite returned them.
    T.STATUS_TABLE,
    { "📊 Orders by status (bar chart)" },
    { answer },
  }) do
    T.truthy(lines_in(lines, block), "the panel lacks the lines " .. vim.inspect(block))
  end

  -- Still the user's window and buffer; the panel followed its end.
  T.eq(vim.api.nvim_get_current_win(), win, "the focused window after the turn")
  T.eq(vim.api.nvim_get_current_buf(), buf, "the focused buffer after the turn")
  local chat_buf = vim.fn.bufnr("aiq://chat")
  T.eq(vim.bo[chat_buf].buftype, "nofile", "the panel's buftype")
  T.eq(vim.bo[chat_buf].filetype, "markdown", "the panel's filetype")
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == chat_buf then
      T.eq(vim.api.nvim_win_get_cursor(w)[1], #lines, "the panel's cursor line (following the end)")
    end
  end
  T.eq(#T.errors(), 0, "error messages")
  T.screenshot("nvim-chat-panel.txt")
end)
