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
  T.eq(T.panel(), T.COUNT_TURN, "the turn, live")
  T.expect_history(T.COUNT_TURN)
  T.eq(#T.errors(), 0, "error messages")
end)
