-- A server that cannot start is reported in one error message with the
-- path tried, what it printed and the install hint; the turn ends; and a
-- good server given later starts on the next command.
local T = dofile(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":h") .. "/helper.lua")

local hint = "go install github.com/aiq/aiq-rpc/cmd/aiq-rpc@latest"

local function ask_expecting_error(what)
  local before = #T.errors()
  vim.cmd("AiqAsk hello")
  -- The message comes before the turn ends, in the same tick.
  T.wait_turn(10000)
  local errors = T.errors()
  T.eq(#errors, before + 1, "error messages for " .. what)
  local msg = errors[#errors]
  T.truthy(msg:find(hint, 1, true), what .. ": the message lacks the install hint: " .. msg)
  T.truthy(not msg:find("traceback", 1, true), what .. ": the message is a stack: " .. msg)
  T.expect("aiq-rpc is not running", what)
  return msg
end

T.run(function()
  local missing = T.env.AIQ_TEST_TMP .. "/no/such/aiq-rpc"
  T.setup({ server = missing })
  local msg = ask_expecting_error("a missing server")
  T.truthy(msg:find(missing, 1, true), "the message lacks the path tried: " .. msg)

  local broken = T.env.AIQ_TEST_BROKEN
  T.setup({ server = broken })
  msg = ask_expecting_error("a server that exits at once")
  T.truthy(msg:find(broken, 1, true), "the message lacks the path tried: " .. msg)
  T.truthy(msg:find("exited with status 3", 1, true), "the message lacks the exit status: " .. msg)
  T.truthy(msg:find("cannot read the configuration (broken on purpose)", 1, true), "the message lacks what the server printed: " .. msg)

  T.setup()
  require("aiq.chat").clear()
  vim.cmd("AiqAsk hello")
  T.wait_turn()
  T.expect("Hello there.", "the answer once the server is found")
end)
