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
  cost = "aiq wants to run an expensive read:",
}

local function group_digits(n)
  local s = tostring(math.floor(n))
  return (s:reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", ""))
end

local verbs = { DELETE = "remove", INSERT = "add", UPDATE = "change" }

-- dry_run_text says what the dry run found, as a line ending in a newline
-- ("This DELETE would remove 5,008 rows (...)."); "" when none was tried.
function M.dry_run_text(params)
  local reason = type(params.dryRunReason) == "string" and params.dryRunReason:gsub("%.$", "") or ""
  if params.dryRun == "ok" and type(params.affectedRows) == "number" then
    local first = ((params.sql or ""):match("^%s*(%a+)") or ""):upper()
    local kind, verb = first, verbs[first]
    if not verb then
      kind, verb = "statement", "change"
    end
    local n = params.affectedRows
    return string.format("This %s would %s %s %s (counted in a transaction that was rolled back).\n",
      kind, verb, group_digits(n), n == 1 and "row" or "rows")
  elseif params.dryRun == "failed" then
    return "A trial run in a transaction that was rolled back failed: " .. reason .. ".\n"
  elseif params.dryRun == "skipped" then
    return "The rows it would change were not counted beforehand: " .. reason .. ".\n"
  end
  return ""
end

-- masked_text says what each masked token of the SQL stands for, a line
-- each ending in a newline ("<masked:email:3f2a…> is ann@example.com",
-- the token shortened, as the SQL shows it whole); "" without any. The
-- user may see the values; only the model must not.
function M.masked_text(params)
  local lines = {}
  for _, m in ipairs(type(params.masked) == "table" and params.masked or {}) do
    if type(m) == "table" and type(m.token) == "string" and type(m.value) == "string" then
      local token = m.token:gsub("^(<masked:[%l%d_]*:%x%x%x%x)%x+>$", "%1…>")
      table.insert(lines, token .. " is " .. m.value:gsub("\n", " ") .. "\n")
    end
  end
  return table.concat(lines)
end

-- ask shows the SQL, what its masked tokens stand for, why it must ask
-- first and what "always" would cover. Reject is the default button:
-- Enter rejects, as Esc does (confirm() returns 0 for Esc, which no
-- decision has). Neovim 0.7 needs the answer at once, so the dialog
-- blocks.
function M.ask(params)
  local scope = params.scope
  if scope == vim.NIL or scope == "" then
    scope = nil
  end
  local always = scope and string.format('"Allow always" covers only this: %s.', scope)
    or 'It asks every time: no "Allow always" covers it.'
  local label = type(params.label) == "string" and params.label ~= "" and ("[" .. params.label:upper() .. "] ") or ""
  local msg = string.format(
    "%s%s\n\n%s\n%s\n%s\n%s%s\n",
    label,
    headings[params.risk] or "aiq wants to run a statement that writes:",
    params.sql or "",
    M.masked_text(params),
    params.reason or params.risk or "",
    M.dry_run_text(params),
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
