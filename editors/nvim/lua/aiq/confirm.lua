-- chat/confirm: the user allows or rejects a statement that writes.
local chat = require("aiq.chat")

local M = {}

-- The dialog's buttons, each with its own hotkey; the index is what
-- confirm() returns.
M.buttons = "Allow &once\nAllow &always\n&Reject"

local decisions = {
  { "allow_once", "Allowed once" },
  { "allow_always", "Allowed for the rest of this session" },
  { "reject" },
}

-- REJECT is the default button: Enter rejects, as Esc does (confirm()
-- returns 0 for Esc, which no decision has).
local REJECT = 3

-- ask shows the SQL and why it writes. Neovim 0.7 needs the answer at
-- once, so the dialog blocks.
function M.ask(params)
  local msg = string.format(
    "aiq wants to run a statement that writes:\n\n%s\n\n%s\n",
    params.sql or "",
    params.reason or params.risk or ""
  )
  local choice = vim.fn.confirm(msg, M.buttons, REJECT)
  local decision = decisions[choice] or decisions[REJECT]
  -- A rejected statement's result says so under its SQL: once is enough.
  if decision[1] ~= "reject" and require("aiq.turn").running() then
    chat.add({ "✋ " .. decision[2] })
  end
  return { decision = decision[1] }
end

return M
