-- :AiqAsk with neither a question nor a selection prompts for one; then
-- :AiqHistory replaces the panel with the session's history as the server
-- keeps it.
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
  T.expect("There are 4 orders.", "the answer")

  vim.cmd("AiqHistory")
  local want = { "## You", "How many orders are there?", "", "## aiq", "There are 4 orders." }
  T.wait("the history in the panel", function()
    return vim.deep_equal(T.panel(), want)
  end, 5000)
  T.eq(#T.errors(), 0, "error messages")
end)
