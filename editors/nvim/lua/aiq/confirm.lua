-- chat/confirm: the user allows or rejects a statement that writes.
local chat = require("aiq.chat")

local M = {}

-- The dialog's buttons, each with its own hotkey; the index is what
-- confirm() returns. "Allow always" is offered only with a scope: a
-- statement without one (a DROP, a DELETE without WHERE, ...) asks every
-- time.
M.buttons = "Allow &once\nAllow &always\n&Reject"
M.buttons_once = "Allow &once\n&Reject"

-- What the statement does, by its risk: "outside" reads or works outside
-- the database and changes no data.
local headings = {
  outside = "aiq wants to run a statement that reaches outside the database:",
  ddl = "aiq wants to run a statement that changes the schema:",
}

-- ask shows the SQL, why it must ask first and what "always" would
-- cover. Reject is the default button: Enter rejects, as Esc does
-- (confirm() returns 0 for Esc, which no decision has). Neovim 0.7 needs
-- the answer at once, so the dialog blocks.
function M.ask(params)
  local scope = params.scope
  if scope == vim.NIL or scope == "" then
    scope = nil
  end
  local always = scope and string.format('"Allow always" covers only this: %s.', scope)
    or 'It asks every time: no "Allow always" covers it.'
  local msg = string.format(
    "%s\n\n%s\n\n%s\n%s\n",
    headings[params.risk] or "aiq wants to run a statement that writes:",
    params.sql or "",
    params.reason or params.risk or "",
    always
  )
  local decisions = { { "allow_once", "Allowed once" } }
  local buttons = M.buttons_once
  if scope then
    table.insert(decisions, { "allow_always", "Allowed: " .. scope })
    buttons = M.buttons
  end
  table.insert(decisions, { "reject" })
  local reject = #decisions
  local choice = vim.fn.confirm(msg, buttons, reject)
  local decision = decisions[choice] or decisions[reject]
  -- A rejected statement's result says so under its SQL: once is enough.
  if decision[1] ~= "reject" and require("aiq.turn").running() then
    chat.add({ "✋ " .. decision[2] })
  end
  return { decision = decision[1] }
end

return M
