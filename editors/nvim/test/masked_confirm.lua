-- A write that names its rows by a masked token: the dialog says, under
-- the SQL, what the token stands for. Esc rejects it; the Go test checks
-- that the model read no masked value.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

T.run(function()
  T.setup()
  T.answer_confirm(0)
  vim.cmd("AiqAsk delete the orders of order 3's status")
  T.wait_turn()
  T.eq(#T.asked, 1, "confirmations asked")
  local msg = T.asked[1].msg
  local hex = msg:match("DELETE FROM orders WHERE status = '<masked:status:(%x+)>'\n")
  T.truthy(hex, "the dialog shows the SQL with its token: " .. msg)
  T.truthy(msg:find("'\n<masked:status:" .. hex:sub(1, 4) .. "…> is pending\n\n", 1, true),
    "the dialog says under the SQL what the token stands for: " .. msg)
  T.expect("✗ You declined this statement, so it did not run.", "the rejected write")
  T.eq(#T.errors(), 0, "error messages")
end)
