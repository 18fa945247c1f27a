-- With no model, a question that is one SQL statement runs directly: the
-- panel shows the statement and its table, without the server's summary
-- of the rows ("Query executed successfully ... Sample data") under it,
-- live and in the history.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  vim.cmd("AiqAsk SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status")
  T.wait_turn()
  T.eq(T.panel(), {
    "## You",
    "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status",
    "",
    "## aiq",
    "```sql",
    "SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status",
    "```",
    "| status    | n   |",
    "|-----------|----:|",
    "| delivered |   2 |",
    "| pending   |   1 |",
    "| shipped   |   1 |",
    "(3 rows)",
  }, "the statement's table alone")

  -- The history reads the same, for two turns (which reuse their call
  -- id): the summary the server keeps as the answer is left out there too.
  vim.cmd("AiqAsk SELECT count(*) AS n FROM orders")
  T.wait_turn()
  T.expect("|   4 |", "the second turn's table")
  local live = T.panel()
  require("aiq.chat").clear()
  vim.cmd("AiqHistory")
  T.wait("the history", function()
    return #T.panel() > 1
  end, 5000)
  T.eq(T.panel(), live, "the history")
  T.eq(#T.errors(), 0, "error messages")
end)
