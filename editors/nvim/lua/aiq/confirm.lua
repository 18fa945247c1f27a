-- chat/confirm: the user allows or rejects a statement that writes.
local chat = require("aiq.chat")

local M = {}

local decisions = {
  { "allow_once", "Allowed once" },
  { "allow_always", "Allowed for the rest of this session" },
  { "reject", "Rejected" },
}

-- ask shows the SQL and why it writes. Neovim 0.7 needs the answer at
-- once, so the dialog blocks; Esc and 0 reject.
function M.ask(params)
  local msg = string.format(
    "aiq wants to run a statement that writes:\n\n%s\n\n%s\n",
    params.sql or "",
    params.reason or params.risk or ""
  )
  local choice = vim.fn.confirm(msg, "&Allow once\n&Allow always\n&Reject", 3)
  local decision = decisions[choice] or decisions[3]
  if require("aiq.turn").running() then
    chat.add({ "✋ " .. decision[2] })
  end
  return { decision = decision[1] }
end

return M
