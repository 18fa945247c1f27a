-- With no model, a question that is one SQL statement runs directly: the
-- panel shows the statement and its table, without the server's summary
-- of the rows ("Query executed successfully ... Sample data") under it,
-- live and in the history.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  local sql = "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status"
  vim.cmd("AiqAsk " .. sql)
  T.wait_turn()
  local want = { "## You", sql, "", "## aiq", "```sql", sql, "```" }
  T.eq(T.panel(), vim.list_extend(want, T.STATUS_TABLE), "the statement's table alone")

  -- The history reads the same, for two turns (which reuse their call
  -- id): the summary the server keeps as the answer is left out there too.
  vim.cmd("AiqAsk SELECT count(*) AS n FROM orders")
  T.wait_turn()
  T.expect("|   4 |", "the second turn's table")
  T.expect_history(T.panel())
  T.eq(#T.errors(), 0, "error messages")
end)
