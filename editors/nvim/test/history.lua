-- :AiqAsk with neither a question nor a selection prompts for one; then
-- :AiqHistory replaces the panel with the session's history as the server
-- keeps it, which reads as the turn did live: the question, the SQL that
-- ran, its table and the answer.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  local prompts = {}
  vim.fn.input = function(opts)
    table.insert(prompts, opts)
    return "How many orders are there?"
  end
  vim.cmd("AiqAsk")
  T.eq(#prompts, 1, "prompts for the question")
  T.wait_turn()
  local live = T.panel()
  T.eq(live, {
    "## You",
    "How many orders are there?",
    "",
    "## aiq",
    "```sql",
    "SELECT count(*) AS n FROM orders",
    "```",
    "| n   |",
    "|----:|",
    "|   4 |",
    "(1 row)",
    "",
    "There are 4 orders.",
  }, "the turn, live")

  require("aiq.chat").clear()
  vim.cmd("AiqHistory")
  T.wait("the history in the panel", function()
    return #T.panel() > 1
  end, 5000)
  T.eq(T.panel(), live, "the history")
  T.eq(#T.errors(), 0, "error messages")
end)
