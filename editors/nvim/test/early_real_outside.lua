-- A read that reaches outside the database (SQLite's readfile) asks first,
-- as a write does, but the dialog does not call it a write: it says the
-- statement reaches outside the database, and why. Esc declines it.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  T.answer_confirm(0)
  vim.cmd("AiqAsk what is the host's name?")
  T.wait_turn()
  T.eq(#T.asked, 1, "confirmations asked")
  local msg = T.asked[1].msg
  T.truthy(msg:find("reaches outside the database", 1, true), "the dialog's heading: " .. msg)
  T.truthy(not msg:find("writes", 1, true), "the dialog calls the read a write: " .. msg)
  T.truthy(msg:find("readfile reads a file on the machine aiq-rpc runs on", 1, true), "the dialog's reason: " .. msg)
  T.expect("✗ You declined this statement, so it did not run.", "the declined read")
  T.eq(#T.errors(), 0, "error messages")
end)
