-- A turn that fails (the model endpoint refuses) says why in the panel,
-- where the question is, and only there: no popup stacked on top, as in
-- the VS Code panel, without the server's internal prefixes. The next
-- question works.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  vim.cmd("AiqAsk How many orders are there?")
  T.wait_turn()
  T.expect("✗ The model endpoint", "the failed turn, in the user's words")
  T.expect("unknown model test-model", "the endpoint's reason")
  T.expect("Run :!aiq-rpc doctor to check the model's set-up step by step.", "how to check the set-up")
  for _, internal in ipairs({ "chat/turn:", "run turn:", "model request" }) do
    T.truthy(not T.has(internal), "the panel shows the server's internal prefix " .. internal)
  end
  T.eq(#T.errors(), 0, "error popups")
  vim.cmd("AiqAsk And now?")
  T.wait_turn()
  T.expect("Three orders.", "the next answer")
end)
